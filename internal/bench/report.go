package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/chronoshq/chronos/app/dispatch"
)

// result is what a run prints: a table for people, then, as the last line, one
// JSON object for scripts (.ci/bench, docs/benchmarks.md).
type result struct {
	Store       string  `json:"store"`
	Nodes       int     `json:"nodes"`
	Waker       string  `json:"waker"`
	Mode        string  `json:"mode"`
	Alarms      int64   `json:"alarms"`
	NotDue      int64   `json:"not_due,omitempty"`
	Batch       int     `json:"batch"`
	Concurrency int     `json:"concurrency"`
	ElapsedSec  float64 `json:"elapsed_s"`
	FiresPerSec float64 `json:"fires_per_sec"`
	LagP50Ms    float64 `json:"lag_p50_ms"`
	LagP99Ms    float64 `json:"lag_p99_ms"`
	LagMaxMs    float64 `json:"lag_max_ms"`
	ClaimMs     float64 `json:"claim_ms"` // mean ClaimDue latency
	// DrainMs (steady mode): from the last alarm's due time until the last outcome was
	// applied; a backlog the dispatchers did not keep up with shows here.
	DrainMs        float64 `json:"drain_ms,omitempty"`
	DoubleFires    int64   `json:"double_fires"`
	EarlyFires     int64   `json:"early_fires"`
	Delivered      int64   `json:"delivered"`
	Failed         int64   `json:"failed"`
	Stale          int64   `json:"stale"`
	Deferred       int64   `json:"deferred"` // wakes held back by the node (endpoint or owner cap), not sent
	Commits        int64   `json:"commits"`
	CommitsPerFire float64 `json:"commits_per_fire"`
	CommitsSource  string  `json:"commits_source"`
	LoadPerSec     float64 `json:"load_per_sec,omitempty"`
	Cores          int     `json:"cores"`
	// NodePeakRSS is the largest peak resident set size of a node process (bytes).
	NodePeakRSS int64 `json:"node_peak_rss"`
	// SizesStart and SizesEnd are chronos's tables before the dispatchers start and
	// after the last outcome.
	SizesStart []tableSize `json:"sizes_start,omitempty"`
	SizesEnd   []tableSize `json:"sizes_end,omitempty"`
	// Costs is what a fire cost the machine during the run (CPU, log bytes).
	Costs *costs `json:"costs,omitempty"`
	// List is --list-clients: store.List latency per variant after the run.
	List []listResult `json:"list,omitempty"`
	// UnfairClaims: the nodes ran with --unfair-claims.
	UnfairClaims bool `json:"unfair_claims"`
	// Fairness is the fairness mode's (--noisy-owner).
	Fairness *fairness `json:"fairness,omitempty"`
	// HungEndpoint is the hung-endpoint mode's (--hung-endpoint).
	HungEndpoint *hungEndpoint `json:"hung_endpoint,omitempty"`

	Stats dispatch.StatsSnapshot `json:"-"`
}

// fill sums the nodes' reports. Deliveries are the receiver's with the webhook waker,
// else the nodes' own; a key delivered by two nodes is a double fire like a key
// delivered twice by one.
func (res *result) fill(reports []nodeReport, rec *Recorder, recv *Receiver, elapsed time.Duration) {
	var lag Histogram
	seen := map[string]struct{}{}
	for _, rep := range reports {
		st := rep.Stats
		res.Stats.Claims += st.Claims
		res.Stats.Claimed += st.Claimed
		res.Stats.ClaimErrors += st.ClaimErrors
		res.Stats.Delivered += st.Delivered
		res.Stats.Failed += st.Failed
		res.Stats.Deferred += st.Deferred
		res.Stats.Abandoned += st.Abandoned
		res.Stats.Applied += st.Applied
		res.Stats.Stale += st.Stale
		res.Stats.ApplyErrors += st.ApplyErrors
		res.Stats.AdvanceSkipped += st.AdvanceSkipped
		res.Stats.ApplyCalls += st.ApplyCalls
		res.Stats.ClaimTime += st.ClaimTime
		res.Stats.DenseClaims += st.DenseClaims
		res.NodePeakRSS = max(res.NodePeakRSS, rep.PeakRSS)
		if rec != nil {
			continue
		}
		if rep.Lag != nil {
			lag.Merge(*rep.Lag)
		}
		res.DoubleFires += rep.Doubles
		res.EarlyFires += rep.Early
		for _, k := range rep.Keys {
			if _, dup := seen[k]; dup {
				res.DoubleFires++
			}
			seen[k] = struct{}{}
		}
	}
	res.Failed, res.Stale, res.Deferred = res.Stats.Failed, res.Stats.Stale, res.Stats.Deferred
	if res.Stats.Claims > 0 {
		res.ClaimMs = float64((res.Stats.ClaimTime / time.Duration(res.Stats.Claims)).Microseconds()) / 1000
	}
	res.Delivered = res.Stats.Delivered
	if rec != nil {
		lag.Merge(rec.Lag.Data())
		res.DoubleFires, res.EarlyFires, res.Delivered = rec.Doubles(), rec.Early(), rec.Delivered()
	}
	res.ElapsedSec = elapsed.Seconds()
	res.FiresPerSec = float64(res.Alarms) / elapsed.Seconds()
	res.LagP50Ms, res.LagP99Ms, res.LagMaxMs = ms(lag.Quantile(0.5)), ms(lag.Quantile(0.99)), ms(lag.Max())
	res.Cores = runtime.NumCPU()
}

// print prints the table, then the JSON line.
func (res *result) print(w io.Writer) {
	res.printTable(w)
	line, _ := json.Marshal(res)
	fmt.Fprintln(w, string(line))
}

func (res *result) printTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, v ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, v...)...) }
	claims := "fair claims"
	if res.UnfairClaims {
		claims = "unfair claims (--unfair-claims)"
	}
	row("store", "%s (%d node(s), %s waker, %s, batch %d, concurrency %d, %s)", res.Store, res.Nodes, res.Waker, res.Mode, res.Batch, res.Concurrency, claims)
	row("alarms", "%d in %.2fs (and %d not due)", res.Alarms, res.ElapsedSec, res.NotDue)
	if res.Fairness == nil && res.HungEndpoint == nil { // not a figure of theirs
		row("fires/s", "%.0f", res.FiresPerSec)
	}
	row("lag p50 / p99 / max", "%.1f / %.1f / %.1f ms", res.LagP50Ms, res.LagP99Ms, res.LagMaxMs)
	if res.Mode == "steady" {
		row("backlog at the end", "drained %.0f ms after the last alarm fell due", res.DrainMs)
	}
	if res.Fairness != nil {
		res.Fairness.rows(row)
	}
	if res.HungEndpoint != nil {
		res.HungEndpoint.rows(row)
	}
	row("double fires", "%d", res.DoubleFires)
	row("early fires", "%d", res.EarlyFires)
	row("delivered / failed / stale / deferred", "%d / %d / %d / %d", res.Delivered, res.Failed, res.Stale, res.Deferred)
	row("claims / apply calls", "%d / %d (%.0f alarms per claim, %.2f ms per claim; %d claimed again at once, the stream dense)", res.Stats.Claims, res.Stats.ApplyCalls,
		float64(res.Stats.Claimed)/float64(max(res.Stats.Claims, 1)), res.ClaimMs, res.Stats.DenseClaims)
	row("commits per fire", "%.4f (%d commits; %s)", res.CommitsPerFire, res.Commits, res.CommitsSource)
	if res.LoadPerSec > 0 {
		row("bulk load", "%.0f alarms/s", res.LoadPerSec)
	}
	if res.Costs != nil {
		res.Costs.rows(row)
	}
	row("node peak RSS", "%s", mib(res.NodePeakRSS))
	row("tables at start", "%s", formatSizes(res.SizesStart))
	row("tables at end", "%s", formatSizes(res.SizesEnd))
	for _, l := range res.List {
		name := "list: " + l.Variant
		if l.Round > 0 {
			name += fmt.Sprintf(" (round %d)", l.Round)
		}
		row(name, "%.0f calls/s, p50 %.2f ms, p99 %.2f ms", l.PerSec, l.P50Ms, l.P99Ms)
	}
	_ = tw.Flush()
}

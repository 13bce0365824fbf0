package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// punctualityResult is what a punctuality run prints: a table, then one JSON line.
type punctualityResult struct {
	Store         string  `json:"store"`
	Nodes         int     `json:"nodes"`
	Tick          string  `json:"tick"`
	Mode          string  `json:"mode"`
	ElapsedSec    float64 `json:"elapsed_s"`
	SparseCreated int     `json:"sparse_created"`
	// Creates is how long the sparse alarms' creates took, request to answer.
	Creates lateness `json:"creates"`
	Sparse  lateness `json:"sparse"`
	// SparseFired is fired_at − scheduled_for: the part before the node began the wake.
	SparseFired   lateness        `json:"sparse_fired"`
	SparseByDelay []delayLateness `json:"sparse_by_delay"`
	Every         lateness        `json:"every_1s"`
	Cron6         lateness        `json:"cron_every_second"`
	Doubles       int64           `json:"double_fires"`
	Early         int64           `json:"early_fires"`
	BadSignatures int64           `json:"bad_signatures"`
	Idle          idleCost        `json:"idle"`
	Noise         *noiseFigures   `json:"noise,omitempty"`
}

// lateness is a distribution of arrival − scheduled_for, in milliseconds.
type lateness struct {
	N     int     `json:"n"`
	P50Ms float64 `json:"p50_ms"`
	P90Ms float64 `json:"p90_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

type delayLateness struct {
	Delay string `json:"delay"`
	lateness
}

// idleCost is what the nodes asked of the store with nothing due.
type idleCost struct {
	Seconds float64 `json:"seconds"`
	// CallsPerNodeSec: claims plus next-due reads, per node and second (the nodes'
	// chronos_claims_total and chronos_next_due_reads_total).
	CallsPerNodeSec float64 `json:"store_calls_per_node_sec"`
	// CommitsPerSec: the database's committed transactions a second, every node's
	// and every kind (heartbeats too), where the server counts them.
	CommitsPerSec float64 `json:"commits_per_sec,omitempty"`
	CommitsSource string  `json:"commits_source,omitempty"`
}

// summarizeLateness sorts l and reads its quantiles (nearest rank).
func summarizeLateness(l []time.Duration) lateness {
	if len(l) == 0 {
		return lateness{}
	}
	slices.Sort(l)
	q := func(p float64) float64 {
		i := int(p*float64(len(l))+0.999999) - 1
		return ms(l[min(max(i, 0), len(l)-1)])
	}
	return lateness{N: len(l), P50Ms: q(0.50), P90Ms: q(0.90), P99Ms: q(0.99), MaxMs: ms(l[len(l)-1])}
}

func (r *punctualityResult) print(w io.Writer) {
	r.Mode = "punctuality"
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "punctuality: %s, %d serve node(s), --tick %s, %.0fs; lateness = arrival at the receiver − scheduled_for\n",
		r.Store, r.Nodes, r.Tick, r.ElapsedSec)
	fmt.Fprintln(tw, "wakes\tn\tp50 ms\tp90 ms\tp99 ms\tmax ms\t")
	row := func(name string, l lateness) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t\n", name, l.N, l.P50Ms, l.P90Ms, l.P99Ms, l.MaxMs)
	}
	if r.Noise != nil {
		r.printNoise(w, tw, row)
		return
	}
	row("sparse, all", r.Sparse)
	row("  of it, until fired_at", r.SparseFired)
	row("sparse creates (request time)", r.Creates)
	for _, d := range r.SparseByDelay {
		row("  due after "+d.Delay, d.lateness)
	}
	row("@every 1s", r.Every)
	row("* * * * * *", r.Cron6)
	_ = tw.Flush()
	fmt.Fprintf(w, "sparse created %d; double fires %d, early %d, bad signatures %d\n", r.SparseCreated, r.Doubles, r.Early, r.BadSignatures)
	fmt.Fprintf(w, "idle, %.0fs: %.2f store calls (claims + next-due reads) a node a second", r.Idle.Seconds, r.Idle.CallsPerNodeSec)
	if r.Idle.CommitsSource != "" {
		fmt.Fprintf(w, "; the database committed %.1f transactions a second (%s, every kind)", r.Idle.CommitsPerSec, r.Idle.CommitsSource)
	}
	fmt.Fprintln(w)
	b, _ := json.Marshal(r)
	fmt.Fprintln(w, string(b))
}

func (r *punctualityResult) printNoise(w io.Writer, tw *tabwriter.Writer, row func(string, lateness)) {
	row("quiet owner, due 500ms after create", r.Sparse)
	row("  of it, until fired_at", r.SparseFired)
	row("quiet owner's creates (request time)", r.Creates)
	switch r.Noise.Kind {
	case noiseBurst:
		row(fmt.Sprintf("the burst (%d due at once)", r.Noise.Alarms), r.Noise.Noise)
	case noiseSibling, noiseSiblingAnswering:
		row(fmt.Sprintf("answering endpoint, %d due at once", r.Noise.Alarms), r.Noise.Noise)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "noise %s; quiet alarms created %d; double fires %d, early %d, bad signatures %d\n",
		r.Noise.Kind, r.SparseCreated, r.Doubles, r.Early, r.BadSignatures)
	if a := r.Noise.Abuse; a != nil {
		r.printAbuse(w, a)
	}
	b, _ := json.Marshal(r)
	fmt.Fprintln(w, string(b))
}

// printAbuse is one line per attack: its requests by status.
func (r *punctualityResult) printAbuse(w io.Writer, a *abuseFigures) {
	fmt.Fprintf(w, "the attacker, over %d alarms of its own: an endpoint at 127.0.0.1 answered %d; the internal service was reached %d times; bulk cancels changed %d\n",
		r.Noise.Alarms, a.RegisterByAddress, a.InternalReached, a.BulkChanged)
	for _, what := range slices.Sorted(maps.Keys(a.Requests)) {
		by := a.Requests[what]
		var parts []string
		total := 0
		for _, status := range slices.Sorted(maps.Keys(by)) {
			parts = append(parts, fmt.Sprintf("%s ×%d", status, by[status]))
			total += by[status]
		}
		fmt.Fprintf(w, "  %-17s %6d requests: %s\n", what, total, strings.Join(parts, ", "))
	}
}

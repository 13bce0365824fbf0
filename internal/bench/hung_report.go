package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// hungEndpoint is what the hung-endpoint mode measured.
type hungEndpoint struct {
	// The hung endpoint: its alarms (0 in --also-without's second run), both endpoints'
	// max_in_flight and timeout, and the hung period: from its alarms' due instant to its
	// end, and what ended it.
	Alarms            int64   `json:"alarms"`
	MaxInFlight       int     `json:"max_in_flight"`
	DeliveryTimeoutMs float64 `json:"delivery_timeout_ms"`
	PeriodMs          float64 `json:"period_ms"`
	EndedBy           string  `json:"ended_by"`
	// What the hung endpoint's receiver saw until the run ended: requests, the alarms
	// among them, and the most it held at once that a node still waited on
	// (max_in_flight caps it on each node).
	Attempts  int64 `json:"attempts"`
	Attempted int64 `json:"attempted"`
	PeakHeld  int64 `json:"peak_held"`
	// HungDelivered counts the hung endpoint's wakes acknowledged: none should be.
	HungDelivered int64 `json:"hung_delivered"`
	// The nodes' figures: wakes held back by reason (ports.Deferred*), the most queued at
	// once on a node, the breakers opened.
	Endpoints endpointFigures `json:"endpoints"`
	// The fast endpoint: its alarms a second, made and delivered (each once: doubles are
	// the run's double_fires), and its wakes' lag before, during and after the hung
	// period (split as the fairness mode's quiet owners' are around the burst).
	FastRate      int        `json:"fast_rate"`
	FastCreated   int64      `json:"fast_created"`
	FastDelivered int64      `json:"fast_delivered"`
	FastBefore    lagSummary `json:"fast_before"`
	FastDuring    lagSummary `json:"fast_during"`
	FastAfter     lagSummary `json:"fast_after"`
}

// measureHung splits the fast endpoint's wakes of log (the other owners' wakes, the
// hung owner's being the burst) around the hung period from due to end.
func measureHung(log OwnerLogData, due, end time.Time) hungEndpoint {
	h := hungEndpoint{HungDelivered: log.Burst, FastDelivered: int64(len(log.Quiet)), PeriodMs: ms(end.Sub(due))}
	h.FastBefore, h.FastDuring, h.FastAfter = splitLags(log.Quiet, due.UnixNano(), end.UnixNano())
	return h
}

// hungFigures is the hung-endpoint mode's report of a run that ended.
func (r *runner) hungFigures(reports []nodeReport, created int64) *hungEndpoint {
	h := r.hung // a run ends after its hung period (hungDone): h.end is set
	f := measureHung(r.rec.OwnerLog(), h.timeline.burstDue, h.end)
	c := h.recv.counts()
	f.Alarms, f.MaxInFlight, f.DeliveryTimeoutMs, f.EndedBy = h.loaded, r.cfg.EndpointMaxInFlight, ms(r.cfg.DeliveryTimeout), h.endedBy
	f.Attempts, f.Attempted, f.PeakHeld = c.Attempts, c.Attempted, c.PeakHeld
	f.FastRate, f.FastCreated = r.cfg.QuietRate, created
	for _, rep := range reports {
		f.Endpoints.merge(rep.Endpoints)
	}
	return &f
}

// heldBackText lists the held-back counts by reason, in a fixed order.
func (f endpointFigures) heldBackText() string {
	var total int64
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(f.HeldBack)) {
		total += f.HeldBack[reason]
		parts = append(parts, fmt.Sprintf("%s %d", reason, f.HeldBack[reason]))
	}
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

// rows prints the hung-endpoint rows of a run's table.
func (h *hungEndpoint) rows(row func(k, format string, v ...any)) {
	row("hung endpoint", "%s/%s: %d alarms due at one instant, max_in_flight %d, timeout %.0f ms; hung period %.1f ms (ended by %s)",
		HungOwner, HungEndpoint, h.Alarms, h.MaxInFlight, h.DeliveryTimeoutMs, h.PeriodMs, h.EndedBy)
	row("hung endpoint's wakes", "%d attempts (%d alarms), at most %d held at once, %d acknowledged", h.Attempts, h.Attempted, h.PeakHeld, h.HungDelivered)
	row("held back / queued", "%s; at most %d queued on a node; breakers opened %d", h.Endpoints.heldBackText(), h.Endpoints.PeakQueued, h.Endpoints.BreakerOpens)
	row("fast endpoint", "%s/%s: %d alarms/s, %d made, %d delivered (%d lost)", FastOwner, FastEndpoint, h.FastRate, h.FastCreated, h.FastDelivered,
		max(h.FastCreated-h.FastDelivered, 0))
	row("fast lag during the hung period", "p50 / p99 / max %s", h.FastDuring)
	row("fast lag before / after", "p50 / p99 / max %s; %s", h.FastBefore, h.FastAfter)
}

// addedP99 is what the hung endpoint added to the fast endpoint's p99 during the hung
// period: with it, minus without it.
func addedP99(with, without *hungEndpoint) float64 {
	return with.FastDuring.P99Ms - without.FastDuring.P99Ms
}

// hungPair is --also-without: the hung-endpoint run, then the same without the hung
// endpoint's alarms and with a hung period as long as the first run's, each on a new
// database; both tables, a comparison, and one JSON line with both runs.
func hungPair(ctx context.Context, cfg Config, w Wiring, stdout, stderr io.Writer) error {
	var runs [2]*result
	for i, without := range []bool{false, true} {
		c := cfg
		c.AlsoWithout, c.hungWithout = false, without
		if without {
			// The reference's "during" is as long as the hung period it is compared with.
			c.Duration = max(time.Duration(runs[0].HungEndpoint.PeriodMs*float64(time.Millisecond)), time.Millisecond)
		}
		fmt.Fprintf(stderr, "bench: --also-without: run %d of 2, %s\n", i+1, map[bool]string{false: "with the hung endpoint's alarms", true: "without them"}[without])
		res, err := runOnce(ctx, c, w, stderr)
		if err != nil {
			return err
		}
		runs[i] = res
		res.printTable(stdout)
		fmt.Fprintln(stdout)
	}
	with, without := runs[0].HungEndpoint, runs[1].HungEndpoint
	added := addedP99(with, without)
	printHungComparison(stdout, with, without, added)
	line, _ := json.Marshal(struct {
		Store      string  `json:"store"`
		Waker      string  `json:"waker"`
		Mode       string  `json:"mode"`
		With       *result `json:"with"`
		Without    *result `json:"without"`
		AddedP99Ms float64 `json:"added_p99_ms"`
	}{runs[0].Store, runs[0].Waker, "hung endpoint pair", runs[0], runs[1], added})
	fmt.Fprintln(stdout, string(line))
	return nil
}

// printHungComparison prints the fast endpoint's lag during the hung period of both runs
// side by side.
func printHungComparison(w io.Writer, with, without *hungEndpoint, added float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "fast endpoint, during the hung period\twith the hung endpoint\twithout\t\n")
	fmt.Fprintf(tw, "hung period ms\t%.1f\t%.1f\t\n", with.PeriodMs, without.PeriodMs)
	printLagRows(tw, "fast", with.FastDuring, without.FastDuring)
	fmt.Fprintf(tw, "held back\t%s\t%s\t\n", with.Endpoints.heldBackText(), without.Endpoints.heldBackText())
	_ = tw.Flush()
	fmt.Fprintf(w, "p99 added by the hung endpoint (with − without): %.1f ms\n", added)
}

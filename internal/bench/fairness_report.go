package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// fairness is what the fairness mode measured.
type fairness struct {
	BurstOwner  string `json:"burst_owner"`
	QuietOwners int    `json:"quiet_owners"`
	QuietRate   int    `json:"quiet_rate"`
	// Burst counts the burst's wakes delivered; BurstDrainMs is from its due instant to
	// its last wake, and BurstPerSec the burst over that time.
	Burst        int64   `json:"burst"`
	BurstDrainMs float64 `json:"burst_drain_ms"`
	BurstPerSec  float64 `json:"burst_per_sec"`
	// The quiet owners' wakes: those delivered before the burst fell due; those that
	// waited at some time in the window from its due instant to its last wake (due in
	// it, or due before it and delivered after its start: the figures this mode is
	// about); those due after it.
	QuietBefore lagSummary `json:"quiet_before"`
	QuietDuring lagSummary `json:"quiet_during"`
	QuietAfter  lagSummary `json:"quiet_after"`
	// HeldBack is the nodes' wakes held back, not sent, by reason (ports.Deferred*):
	// each is a claim and an apply that delivered nothing.
	HeldBack map[string]int64 `json:"held_back"`
}

// lagSummary is the lag (delivery time − due time) of some wakes.
type lagSummary struct {
	Count uint64  `json:"count"`
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

func summarize(h *Histogram) lagSummary {
	return lagSummary{Count: h.Count(), P50Ms: ms(h.Quantile(0.5)), P99Ms: ms(h.Quantile(0.99)), MaxMs: ms(h.Max())}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// measureFairness sorts the quiet owners' wakes of log into before, during and after
// the burst that fell due at due, and works out the burst's drain rate. Quantiles are
// the Histogram's (within 3%); maxima and counts are exact.
func measureFairness(log OwnerLogData, due time.Time) fairness {
	f := fairness{Burst: log.Burst}
	from, last := due.UnixNano(), log.BurstLast
	if log.Burst > 0 && last > from {
		drain := time.Duration(last - from)
		f.BurstDrainMs = ms(drain)
		f.BurstPerSec = float64(log.Burst) / drain.Seconds()
	}
	f.QuietBefore, f.QuietDuring, f.QuietAfter = splitLags(log.Quiet, from, last)
	return f
}

// splitLags sorts wakes ([due, delivered], unix ns) into those delivered before from,
// those that waited at some time from from to last (due by last, delivered from from
// on), and those due after last.
func splitLags(wakes [][2]int64, from, last int64) (before, during, after lagSummary) {
	var b, d, a Histogram
	for _, w := range wakes {
		lag := time.Duration(w[1] - w[0])
		switch {
		case w[1] < from:
			b.Record(lag)
		case w[0] <= last:
			d.Record(lag)
		default:
			a.Record(lag)
		}
	}
	return summarize(&b), summarize(&d), summarize(&a)
}

func (l lagSummary) String() string {
	return fmt.Sprintf("%.1f / %.1f / %.1f ms (%d wakes)", l.P50Ms, l.P99Ms, l.MaxMs, l.Count)
}

// rows prints the fairness rows of a run's table.
func (f *fairness) rows(row func(k, format string, v ...any)) {
	quiet := QuietOwners(f.QuietOwners)
	row("burst", "%s: %d alarms due at one instant, drained in %.1f ms: %.0f/s (due instant to last wake)",
		f.BurstOwner, f.Burst, f.BurstDrainMs, f.BurstPerSec)
	row("quiet owners", "%d (%s..%s), %d alarms/s in all", f.QuietOwners, quiet[0], quiet[len(quiet)-1], f.QuietRate)
	row("quiet lag during the burst", "p50 / p99 / max %s", f.QuietDuring)
	row("quiet lag before / after", "p50 / p99 / max %s; %s", f.QuietBefore, f.QuietAfter)
	row("held back", "%s", endpointFigures{HeldBack: f.HeldBack}.heldBackText())
}

// fairnessPair is --also-unfair: the run with fair claims, then the same with
// --unfair-claims, each on a new database; both tables, a comparison, and one JSON line
// with both runs.
func fairnessPair(ctx context.Context, cfg Config, w Wiring, stdout, stderr io.Writer) error {
	var runs [2]*result
	for i, unfair := range []bool{false, true} {
		c := cfg
		c.AlsoUnfair, c.UnfairClaims = false, unfair
		fmt.Fprintf(stderr, "bench: --also-unfair: run %d of 2, claims %s\n", i+1, map[bool]string{false: "fair", true: "unfair"}[unfair])
		res, err := runOnce(ctx, c, w, stderr)
		if err != nil {
			return err
		}
		runs[i] = res
		res.printTable(stdout)
		fmt.Fprintln(stdout)
	}
	fair, unfair := runs[0].Fairness, runs[1].Fairness
	ratio := 0.0
	if unfair.BurstPerSec > 0 {
		ratio = fair.BurstPerSec / unfair.BurstPerSec
	}
	printComparison(stdout, fair, unfair, ratio)
	line, _ := json.Marshal(struct {
		Store          string  `json:"store"`
		Waker          string  `json:"waker"`
		Mode           string  `json:"mode"`
		Fair           *result `json:"fair"`
		Unfair         *result `json:"unfair"`
		DrainRateRatio float64 `json:"drain_rate_ratio"`
	}{runs[0].Store, runs[0].Waker, "fairness pair", runs[0], runs[1], ratio})
	fmt.Fprintln(stdout, string(line))
	return nil
}

// printLagRows prints two runs' lag summaries of who (quiet, fast) side by side: the
// count and the p50, p99 and max, one row each, in a comparison table's two columns.
func printLagRows(tw io.Writer, who string, a, b lagSummary) {
	fmt.Fprintf(tw, "%s wakes\t%d\t%d\t\n", who, a.Count, b.Count)
	fmt.Fprintf(tw, "%s lag p50 ms\t%.1f\t%.1f\t\n", who, a.P50Ms, b.P50Ms)
	fmt.Fprintf(tw, "%s lag p99 ms\t%.1f\t%.1f\t\n", who, a.P99Ms, b.P99Ms)
	fmt.Fprintf(tw, "%s lag max ms\t%.1f\t%.1f\t\n", who, a.MaxMs, b.MaxMs)
}

// printComparison prints the two runs' fairness figures side by side.
func printComparison(w io.Writer, fair, unfair *fairness, drainRatio float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "during the burst\tfair claims\tunfair claims\t\n")
	printLagRows(tw, "quiet", fair.QuietDuring, unfair.QuietDuring)
	fmt.Fprintf(tw, "burst drain ms\t%.1f\t%.1f\t\n", fair.BurstDrainMs, unfair.BurstDrainMs)
	fmt.Fprintf(tw, "burst drain /s\t%.0f\t%.0f\t\n", fair.BurstPerSec, unfair.BurstPerSec)
	_ = tw.Flush()
	fmt.Fprintf(w, "burst drain rate, fair ÷ unfair: %.2f\n", drainRatio)
}

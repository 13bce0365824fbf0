package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// kneeMaxDrain is the backlog a passing rate may end with: its last alarm's outcome
// applied within this of its due time. A rate the dispatchers do not keep up with ends
// seconds behind even when its p99 over the whole run still looks fine.
const kneeMaxDrain = 250 * time.Millisecond

// kneeStep is one steady run of --find-knee.
type kneeStep struct {
	Rate     int     `json:"rate"`
	LagP50Ms float64 `json:"lag_p50_ms"`
	LagP99Ms float64 `json:"lag_p99_ms"`
	DrainMs  float64 `json:"drain_ms"`
	Doubles  int64   `json:"double_fires"`
	PeakRSS  int64   `json:"node_peak_rss"`
	Pass     bool    `json:"pass"`
}

// findKnee runs steady mode at rising rates: doubling from --rate until a run misses
// (lag p99 at or over --knee-p99, or a backlog left at the end), then halving the gap
// between the highest pass and the lowest miss until it is within 10%. Each run has its
// own new database. It prints every run and the knee: the highest rate that passed.
func findKnee(ctx context.Context, cfg Config, w Wiring, stdout, stderr io.Writer) error {
	var steps []kneeStep
	try := func(rate int) (bool, error) {
		c := cfg
		c.Rate = rate
		fmt.Fprintf(stderr, "bench: --find-knee: %d/s for %s\n", rate, c.Duration)
		res, err := runOnce(ctx, c, w, stderr)
		if err != nil {
			return false, err
		}
		st := kneeStep{Rate: rate, LagP50Ms: res.LagP50Ms, LagP99Ms: res.LagP99Ms, DrainMs: res.DrainMs,
			Doubles: res.DoubleFires, PeakRSS: res.NodePeakRSS}
		st.Pass = res.LagP99Ms < float64(cfg.KneeP99.Microseconds())/1000 &&
			res.DrainMs < float64(kneeMaxDrain.Microseconds())/1000 && res.DoubleFires == 0
		steps = append(steps, st)
		fmt.Fprintf(stderr, "bench: --find-knee: %d/s: lag p99 %.1f ms, drained %.0f ms after the last due: %s\n",
			rate, st.LagP99Ms, st.DrainMs, map[bool]string{true: "pass", false: "miss"}[st.Pass])
		return st.Pass, nil
	}

	pass, miss := 0, 0
	for rate := cfg.Rate; miss == 0; rate *= 2 {
		ok, err := try(rate)
		if err != nil {
			return err
		}
		if ok {
			pass = rate
		} else {
			miss = rate
		}
	}
	for pass > 0 && miss-pass > pass/10 {
		mid := (pass + miss) / 2
		ok, err := try(mid)
		if err != nil {
			return err
		}
		if ok {
			pass = mid
		} else {
			miss = mid
		}
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rate/s\tlag p50 ms\tlag p99 ms\tdrain ms\tdoubles\tnode peak RSS\t\n")
	for _, s := range steps {
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.0f\t%d\t%s\t%s\n", s.Rate, s.LagP50Ms, s.LagP99Ms, s.DrainMs, s.Doubles, mib(s.PeakRSS),
			map[bool]string{true: "pass", false: "miss"}[s.Pass])
	}
	_ = tw.Flush()
	if pass == 0 {
		fmt.Fprintf(stdout, "knee: below %d/s (the first rate missed lag p99 < %s)\n", cfg.Rate, cfg.KneeP99)
	} else {
		fmt.Fprintf(stdout, "knee: %d/s (highest rate with lag p99 < %s and no backlog; %d/s missed)\n", pass, cfg.KneeP99, miss)
	}
	line, _ := json.Marshal(struct {
		Store   string     `json:"store"`
		Knee    int        `json:"knee_rate"`
		P99     float64    `json:"p99_limit_ms"`
		Seconds float64    `json:"duration_s"`
		Steps   []kneeStep `json:"steps"`
	}{cfg.Store, pass, float64(cfg.KneeP99.Microseconds()) / 1000, cfg.Duration.Seconds(), steps})
	fmt.Fprintln(stdout, string(line))
	return nil
}

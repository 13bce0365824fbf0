package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// listResult is one variant of --list-clients: store.List called by C clients at once.
type listResult struct {
	Variant string  `json:"variant"`
	Round   int     `json:"round,omitempty"` // 1, 2, ... with --list-rounds above 1
	Calls   int64   `json:"calls"`
	PerSec  float64 `json:"per_sec"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
}

// listBench runs, once the dispatchers are done, pages of the bench owner's alarms
// through the store itself (no HTTP): the first page, a page 100,000 alarms deep, a
// status that matches the cron series (10% by default), and one that matches nothing;
// --list-clients at once, --list-duration each; with --tags, the tagVariants too. The
// tables are as the run left them: never analyzed. With --list-rounds N every variant
// runs N times, the variants in turn in each round: N runs of each from one load, whose
// spread says how far the day's machine moves a figure.
func (r *runner) listBench(ctx context.Context) ([]listResult, error) {
	s, err := r.w.Open(ctx, r.db.url, false)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	cursor := ""
	for range 200 {
		page, next, err := s.List(ctx, ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 500, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		if next == "" || len(page) == 0 {
			break
		}
		cursor = next
	}
	variants := []struct {
		name string
		f    ports.ListFilter
	}{
		{"first page", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10}},
		{"deep page", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Cursor: cursor}},
		{"status=active", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Status: domain.StatusActive}},
		{"status=failed", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Status: domain.StatusFailed}},
	}
	if r.cfg.Mix.Tags {
		variants = append(variants, tagVariants...)
	}
	var out []listResult
	for round := 1; round <= r.cfg.ListRounds; round++ {
		for _, v := range variants {
			res, err := r.listVariant(ctx, s, v.f)
			if err != nil {
				return nil, fmt.Errorf("bench: list %s: %w", v.name, err)
			}
			res.Variant = v.name
			if r.cfg.ListRounds > 1 {
				res.Round = round
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// listVariant is one variant's figures: --list-clients calling s.List(f) for
// --list-duration.
func (r *runner) listVariant(ctx context.Context, s ports.Store, f ports.ListFilter) (listResult, error) {
	var h Histogram
	var mu sync.Mutex
	var firstErr error
	deadline := time.Now().Add(r.cfg.ListDuration)
	var wg sync.WaitGroup
	for range r.cfg.ListClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if _, _, err := s.List(ctx, f); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				h.Record(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return listResult{}, firstErr
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return listResult{Calls: int64(h.Count()), PerSec: float64(h.Count()) / r.cfg.ListDuration.Seconds(),
		P50Ms: ms(h.Quantile(0.5)), P99Ms: ms(h.Quantile(0.99))}, nil
}

// tagVariants are the list benchmark's tag filters over the alarms Mix.Tags tagged: one
// pair of 1% of the owner's alarms, two pairs of 0.5%, a pair with the status of the
// cron series (0.1%), and a pair no alarm carries.
var tagVariants = []struct {
	name string
	f    ports.ListFilter
}{
	{"tag customer:7 (1%)", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}}},
	{"tags customer:7, plan:pro (0.5%)", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10,
		Tags: []domain.TagFilter{{Key: "customer", Value: "7"}, {Key: "plan", Value: "pro"}}}},
	{"tag customer:7, status=active", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Status: domain.StatusActive,
		Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}}},
	{"tag customer:7, status=failed (none)", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Status: domain.StatusFailed,
		Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}}},
	{"tag customer:none (none)", ports.ListFilter{Scope: ports.OwnedBy(Owner), Limit: 10, Tags: []domain.TagFilter{{Key: "customer", Value: "none"}}}},
}

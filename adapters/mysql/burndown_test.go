package mysql

import (
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TestBurnDownDeadlocks drains 100,000 due alarms with 4 stores (4 "nodes", each its
// own pool) claiming and applying concurrently, checks every alarm fired exactly once,
// and reports how many transactions were run again after a deadlock or lock wait
// timeout. docs/mysql.md quotes its output. It takes a while, so it runs only when
// asked:
//
//	CHRONOS_MYSQL_BURN=1 go test ./adapters/mysql/ -run TestBurnDownDeadlocks -v
func TestBurnDownDeadlocks(t *testing.T) {
	storetest.Asked(t, "CHRONOS_MYSQL_BURN", "1", "drain 100,000 alarms with 4 concurrent claimers")
	const (
		rows     = 100_000
		claimers = 4
		batch    = 100
	)
	first, u := openTestStore(t, Options{})
	ctx := t.Context()
	mustExec(t, first.db, `INSERT INTO alarms (`+alarmColumns+`)
		SELECT CONCAT('0190f0c0-0000-7000-8000-', LPAD(n, 12, '0')), 'owner', 'burn', 'once',
			due, '', '', due, due, '', '', 'null', 'active', 'at_least_once', NULL, 5, 0, '', NULL, NULL,
			due, due, NULL, NULL, 0, 0, '', NULL, ''
		FROM (SELECT n, UTC_TIMESTAMP(6) - INTERVAL 1 DAY + INTERVAL n MICROSECOND AS due
			FROM (SELECT a.d + 10*b.d + 100*c.d + 1000*e.d + 10000*f.d AS n
				FROM `+digits+` a, `+digits+` b, `+digits+` c, `+digits+` e, `+digits+` f) ns) gen`)

	stores := []*Store{first}
	for range claimers - 1 {
		s, err := Open(ctx, u, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		stores = append(stores, s)
	}

	var (
		mu    sync.Mutex
		fired = make(map[string]int, rows)
		wg    sync.WaitGroup
	)
	start := time.Now()
	for i, s := range stores {
		worker := string(rune('A' + i))
		wg.Go(func() {
			for {
				c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: worker, Lease: time.Hour, Batch: batch})
				if err != nil {
					t.Errorf("ClaimDue: %v", err)
					return
				}
				if len(c.Alarms) == 0 {
					return
				}
				ts := make([]domain.Transition, len(c.Alarms))
				for i, a := range c.Alarms {
					ts[i] = domain.Decide(domain.Begin(a, c.Now, domain.Policy{}), domain.Delivered(), c.Now, domain.Policy{})
				}
				res, err := s.Apply(ctx, ts)
				if err != nil || len(res.Stale) != 0 {
					t.Errorf("Apply = %+v, %v", res, err)
					return
				}
				mu.Lock()
				for _, a := range c.Alarms {
					fired[a.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	if len(fired) != rows {
		t.Errorf("%d distinct alarms fired, want %d", len(fired), rows)
	}
	for id, n := range fired {
		if n != 1 {
			t.Errorf("alarm %s fired %d times", id, n)
		}
	}
	var retries int64
	for _, s := range stores {
		retries += s.retries.Load()
	}
	t.Logf("%s: %d alarms, %d claimers, batch %d: drained in %s (%.0f alarms/s), %d transactions retried after a deadlock or lock wait timeout",
		first.server, rows, claimers, batch, elapsed.Round(time.Millisecond), float64(rows)/elapsed.Seconds(), retries)
}

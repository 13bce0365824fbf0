package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// withoutAutovacuum turns autovacuum off for the test schema's own tables, as a server
// with autovacuum off would have it for every table, whatever this server's setting.
func withoutAutovacuum(t *testing.T, s *Store) {
	t.Helper()
	for _, table := range maintainedTables {
		if _, err := s.pool.Exec(context.Background(), `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
	}
}

// makeDead leaves n dead row versions in alarms and waits until the statistics say so.
func makeDead(t *testing.T, s *Store, n int) {
	t.Helper()
	ctx := context.Background()
	insertAlarms(t, s, 0, 0, n)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `UPDATE alarms SET label = 'changed'`); err != nil {
		t.Fatal(err)
	}
	// Statistics reach the shared counters when a session flushes them; ask this one to.
	if _, err := conn.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var dead int64
		if err := s.pool.QueryRow(ctx, `SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'alarms'::regclass`).Scan(&dead); err != nil {
			t.Fatal(err)
		}
		if dead >= int64(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("statistics show %d dead rows, want %d", dead, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func vacuumCount(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	// A fresh statistics snapshot, not the one cached in this transaction.
	if err := s.pool.QueryRow(context.Background(),
		`SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'alarms'::regclass`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Where autovacuum does not run, the store says so at start-up and vacuums its tables
// once they hold enough dead rows, and not before.
func TestMaintainVacuumsWhereAutovacuumIsOff(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, nil)
	withoutAutovacuum(t, s)

	notice, err := s.MaintenanceNotice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notice, "alarms") || !strings.Contains(notice, "vacuums them itself") {
		t.Errorf("notice = %q, want it to say chronos vacuums alarms itself", notice)
	}

	// Below the threshold: nothing to do.
	done, err := s.Maintain(ctx)
	if err != nil || len(done) != 0 {
		t.Fatalf("Maintain on a clean table = %v, %v; want nothing done", done, err)
	}

	makeDead(t, s, vacuumMinDead+1000)
	before := vacuumCount(t, s)
	done, err = s.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].Table != "alarms" || !strings.HasPrefix(done[0].What, "vacuum") {
		t.Fatalf("Maintain = %+v, want one vacuum of alarms", done)
	}
	deadline := time.Now().Add(15 * time.Second)
	for vacuumCount(t, s) == before {
		if time.Now().After(deadline) {
			t.Fatal("Maintain reported a vacuum, but the statistics never counted one")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Nodes maintain one at a time: of several Maintain calls at once, one vacuums and the
// others return at once without doing anything.
func TestMaintainOneNodeAtATime(t *testing.T) {
	ctx := context.Background()
	s, url := newTestStore(t, nil)
	withoutAutovacuum(t, s)
	makeDead(t, s, vacuumMinDead+1000)

	stores := []*Store{s, openStore(t, url, Options{}), openStore(t, url, Options{})}
	// Hold the lock the way a node in the middle of its upkeep does, so the race is
	// certain rather than a matter of timing.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lockID, err := s.maintenanceLockID(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([][]ports.MaintenanceAction, len(stores))
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if results[i], err = st.Maintain(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if len(r) != 0 {
			t.Errorf("store %d maintained while another node held the lock: %+v", i, r)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, lockID); err != nil {
		t.Fatal(err)
	}
	conn.Release()

	// Released, the next call does the work.
	done, err := stores[1].Maintain(ctx)
	if err != nil || len(done) != 1 {
		t.Fatalf("Maintain after the lock was released = %+v, %v; want one vacuum", done, err)
	}
}

package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/mysql"
	"github.com/chronoshq/chronos/adapters/postgres"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Inspector reads the store the nodes share, lease columns included (the API hides
// them), through the same adapter the nodes use. It never writes.
type Inspector struct {
	t     *testing.T
	store ports.Store
	owner string
}

// OpenInspector opens the store at url (already migrated by a node) for owner's alarms.
// It is closed when the test ends, before the store is dropped.
func OpenInspector(t *testing.T, kind storeKind, url, owner string) *Inspector {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		s   ports.Store
		err error
	)
	switch kind {
	case onSQLite:
		s, err = sqlite.Open(ctx, url, sqlite.Options{})
	case onPostgres:
		s, err = postgres.Open(ctx, url, postgres.Options{})
	case onMySQL:
		s, err = mysql.Open(ctx, url, mysql.Options{})
	}
	if err != nil {
		t.Fatalf("opening the store to inspect it: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return &Inspector{t: t, store: s, owner: owner}
}

// Now is the store's clock.
func (in *Inspector) Now() time.Time {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now, err := in.store.Now(ctx)
	if err != nil {
		in.t.Fatalf("reading the store's clock: %v", err)
	}
	return now
}

// Alarms returns every alarm of the owner, with status filter st ("" for all).
func (in *Inspector) Alarms(st domain.Status) []domain.Alarm {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var all []domain.Alarm
	cursor := ""
	for {
		page, next, err := in.store.List(ctx, ports.ListFilter{Scope: ports.OwnedBy(in.owner), Status: st, Limit: ports.MaxListLimit, Cursor: cursor})
		if err != nil {
			in.t.Fatalf("listing alarms: %v", err)
		}
		all = append(all, page...)
		if next == "" {
			return all
		}
		cursor = next
	}
}

// Events returns the history of every alarm in ids, by alarm id, read concurrently.
func (in *Inspector) Events(ids []string) map[string][]domain.Event {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := make(map[string][]domain.Event, len(ids))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	work := make(chan string)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				evs, err := in.store.Events(ctx, ports.OwnedBy(in.owner), id, ports.MaxEventsLimit)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				out[id] = evs
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		in.t.Fatalf("reading events: %v", firstErr)
	}
	return out
}

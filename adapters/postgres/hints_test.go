package postgres

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitHint waits for a hint at exactly at (other processes on the server may publish
// their own), publishing it every 100ms until it arrives: after a reconnect the new
// LISTEN is in place only at some unknown moment.
func waitHint(t *testing.T, s *Store, hints <-chan time.Time, at time.Time) {
	t.Helper()
	ctx := context.Background()
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	if err := s.PublishHint(ctx, at); err != nil {
		t.Fatalf("PublishHint: %v", err)
	}
	for {
		select {
		case got, ok := <-hints:
			if !ok {
				t.Fatal("hint channel closed")
			}
			if got.Equal(at) {
				return
			}
		case <-tick.C:
			if err := s.PublishHint(ctx, at); err != nil {
				t.Fatalf("PublishHint: %v", err)
			}
		case <-deadline:
			t.Fatalf("no hint for %s", at)
		}
	}
}

// subscribe is s.SubscribeHints(ctx), failing t on an error.
func subscribe(ctx context.Context, t *testing.T, s *Store) <-chan time.Time {
	t.Helper()
	hints, err := s.SubscribeHints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return hints
}

// listenerPIDs are the backends of the store at storeURL that are LISTENing: the test
// URL names each test's connections after its schema, so no other process's listener
// can be picked (let alone terminated).
func listenerPIDs(t *testing.T, storeURL string) []int32 {
	t.Helper()
	u, err := url.Parse(storeURL)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := adminPool(t).Query(context.Background(), `
		SELECT pid FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN %'`, u.Query().Get("application_name"))
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// A hint reaches the other processes of the installation, and only them: an
// installation in another schema of the same database is not woken.
func TestHintsReachTheirInstallationOnly(t *testing.T) {
	s, u := newTestStore(t, nil)
	peer := openStore(t, u, Options{}) // a second process on the same schema
	neighbour, _ := newTestStore(t, nil)
	hints := subscribe(t.Context(), t, peer)
	foreign := subscribe(t.Context(), t, neighbour)
	// Hints carry milliseconds; this time has none below.
	at := time.Date(2031, 3, 4, 5, 6, 7, 8e6, time.UTC)
	waitHint(t, s, hints, at)
	select {
	case got := <-foreign:
		if got.Equal(at) {
			t.Errorf("a store in another schema received the hint")
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// The listener's connection is killed the way a failover or a server restart kills
// it; the subscription comes back by itself and later hints arrive on the same channel.
func TestHintsSurviveConnectionLoss(t *testing.T) {
	s, u := newTestStore(t, nil)
	hints := subscribe(t.Context(), t, s)
	waitHint(t, s, hints, time.UnixMilli(1000).UTC())

	pids := listenerPIDs(t, u)
	if len(pids) != 1 {
		t.Fatalf("listening backends = %v, want exactly one", pids)
	}
	// With a timeout, pg_terminate_backend waits until the backend is gone, so the
	// next hint cannot reach the old connection.
	var terminated bool
	if err := adminPool(t).QueryRow(t.Context(), `SELECT pg_terminate_backend($1, 5000)`, pids[0]).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pids[0], terminated, err)
	}

	waitHint(t, s, hints, time.UnixMilli(2000).UTC())
	if now := listenerPIDs(t, u); len(now) != 1 || now[0] == pids[0] {
		t.Errorf("listening backends after reconnect = %v, want one other than %d", now, pids[0])
	}
}

// The listener's connection goes silent, as behind a firewall that forgot it: no
// error ever comes. The listener notices by pinging after a quiet spell, and reconnects.
func TestHintsSurviveASilentConnection(t *testing.T) {
	_, u := newTestStore(t, nil)
	path, through := newSilentPath(t, u)
	s := openStore(t, through, Options{})
	s.listenerCheck = 200 * time.Millisecond // before the listener starts
	publisher := openStore(t, u, Options{})
	hints := subscribe(t.Context(), t, s)
	waitHint(t, publisher, hints, time.UnixMilli(1000).UTC())

	path.Silence()
	waitHint(t, publisher, hints, time.UnixMilli(2000).UTC())
}

func TestHintChannelClosesWithContextAndStore(t *testing.T) {
	s, _ := newTestStore(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	byCtx := subscribe(ctx, t, s)
	byClose := subscribe(context.Background(), t, s)
	cancel()
	waitClosed(t, "after its context ended", byCtx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "after Close", byClose)
	if _, err := s.SubscribeHints(context.Background()); err == nil {
		t.Error("SubscribeHints after Close succeeded")
	}
}

func waitClosed(t *testing.T, when string, ch <-chan time.Time) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("hint channel still open 5s %s", when)
		}
	}
}

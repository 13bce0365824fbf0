package ui

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
	"github.com/chronoshq/chronos/ports"
)

// laggingReplica is the node's own store as its read replica, with the lag (or the
// failure) the test sets.
type laggingReplica struct {
	*sqlite.Store
	lag time.Duration
	err error
}

func (r *laggingReplica) ReplicationLag(context.Context) (time.Duration, error) { return r.lag, r.err }

func (r *laggingReplica) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	if r.err != nil {
		return ports.AlarmCounts{}, r.err
	}
	return r.Store.CountAlarms(ctx, lease)
}

// The overview of a node with a read replica shows how far behind it is, and when it
// does not answer, says so and that the primary serves the lists meanwhile.
func TestOverviewShowsTheReadReplica(t *testing.T) {
	replica := &laggingReplica{lag: 1500 * time.Millisecond}
	s := testserver.New(t, testserver.Options{Dashboard: true, ReadReplica: func(store *sqlite.Store) ports.ReadReplica {
		replica.Store = store
		return replica
	}})
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	e := &env{t: t, ctx: t.Context(), srv: srv, server: s, store: s.Store, tokens: s.Tokens, ui: s.UI}
	reader := e.signIn(e.token("ops", domain.ScopeAdminRead))
	for _, c := range []struct {
		err  error
		want []string
	}{
		{nil, []string{`<span class="label">read replica</span>`, "1.5 s", "behind the primary", "read from the replica"}},
		{errors.New("connection refused"), []string{`<span class="label">read replica</span>`, "unavailable", "lists and counts read the primary", "connection refused"}},
	} {
		replica.err = c.err
		for _, p := range []string{"/ui/", "/ui/fragments/overview"} {
			r := e.get(reader, p)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s with the replica failing %v: %d", p, c.err, r.status)
			}
			for _, want := range c.want {
				if !strings.Contains(r.body, want) {
					t.Errorf("GET %s with the replica failing %v: want %q in\n%s", p, c.err, want, r.body)
				}
			}
		}
	}
}

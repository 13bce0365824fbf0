package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/metrics"
)

type lagger struct {
	lag time.Duration
	err error
}

func (l *lagger) ReplicationLag(context.Context) (time.Duration, error) { return l.lag, l.err }

// chronos_store_replica_lag_seconds reads the replica's lag at every scrape; a replica
// that does not answer leaves that metric out and the rest served.
func TestReplicaLagIsReadAtEachScrape(t *testing.T) {
	m := metrics.New(metrics.Options{})
	replica := &lagger{lag: 1500 * time.Millisecond}
	m.WatchReplicaLag(replica)
	if got := gauge(t, scrape(t, m), "chronos_store_replica_lag_seconds", none); got != 1.5 {
		t.Errorf("chronos_store_replica_lag_seconds = %g, want 1.5", got)
	}
	replica.err = errors.New("connection refused")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if body := rec.Body.String(); rec.Code != http.StatusOK || strings.Contains(body, "chronos_store_replica_lag_seconds ") || !strings.Contains(body, "chronos_wakes_total") {
		t.Errorf("with the replica down, want the lag left out and the rest served (%d):\n%.400s", rec.Code, body)
	}
}

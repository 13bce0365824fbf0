package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
)

// readyTimeout bounds the store ping behind /readyz, well inside the usual probe
// timeouts, so a hung database reads as not ready instead of as a hung probe.
const readyTimeout = 2 * time.Second

// errStoreUnavailable is /readyz's answer when the ping fails. Anyone may ask, so it
// names nothing of the database: the driver's error names its user and address. The
// log and GET /admin/v1/readyz have the cause.
var errStoreUnavailable = &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "store unavailable"}

// healthz serves GET /healthz: the process is up and serving. It touches nothing, so a
// database outage does not get a healthy process restarted.
func (a *api) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz serves GET /readyz: ready when the store answers a ping within readyTimeout.
func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	if err := a.ping(r.Context()); err != nil {
		if r.Context().Err() == nil { // the probe still waits for its answer
			a.health.failed(a.log, err, time.Now())
		}
		respondError(w, err, errStoreUnavailable)
		return
	}
	a.health.answered(a.log, time.Now())
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// adminReadyz serves GET /admin/v1/readyz: /readyz for an operator, with the cause of
// a failed ping. Checking its token asks the store unless this node checked that token
// moments ago, so during a whole outage the log is where the cause is.
func (a *api) adminReadyz(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	if err := a.ping(r.Context()); err != nil {
		a.writeError(w, r, &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "store ping failed: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// ping asks the store to answer within readyTimeout; nil when New was given no Pinger.
func (a *api) ping(ctx context.Context) error {
	if a.ready == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return a.ready.Ping(ctx)
}

// storeHealth is what /readyz last found, so that the log says when the store stops
// answering and when it answers again, not once per probe: probes come every few
// seconds from every balancer and orchestrator. A failure that lasts is logged again
// every readyLogEvery, with its current cause.
type storeHealth struct {
	mu     sync.Mutex
	down   bool
	since  time.Time // when the store stopped answering
	logged time.Time // when the log last said so
}

// readyLogEvery is how often a lasting failure of the store is logged again.
const readyLogEvery = time.Minute

// failed notes a failed ping at now, logging it when it is the first of an outage or
// the last log line is readyLogEvery old.
func (h *storeHealth) failed(log *zap.Logger, err error, now time.Time) {
	h.mu.Lock()
	first := !h.down
	if first {
		h.down, h.since = true, now
	}
	due := first || now.Sub(h.logged) >= readyLogEvery
	if due {
		h.logged = now
	}
	since := h.since
	h.mu.Unlock()
	if !due {
		return
	}
	msg := "the store does not answer: /readyz answers 503"
	if !first {
		msg = "the store still does not answer: /readyz answers 503"
	}
	fields := []zap.Field{zap.Error(err), zap.Duration("down_for", now.Sub(since).Round(time.Millisecond))}
	if errors.Is(err, context.DeadlineExceeded) {
		fields = append(fields, zap.Duration("ping_timeout", readyTimeout))
	}
	log.Warn(msg, fields...)
}

// answered notes a ping the store answered at now, logging the end of an outage.
func (h *storeHealth) answered(log *zap.Logger, now time.Time) {
	h.mu.Lock()
	was, since := h.down, h.since
	h.down = false
	h.mu.Unlock()
	if was {
		log.Info("the store answers again: /readyz answers 200", zap.Duration("down_for", now.Sub(since).Round(time.Millisecond)))
	}
}

package httpapi

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds the store ping behind /readyz, well inside the usual probe
// timeouts, so a hung database reads as not ready instead of as a hung probe.
const readyTimeout = 2 * time.Second

// healthz serves GET /healthz: the process is up and serving. It touches nothing, so a
// database outage does not get a healthy process restarted.
func (a *api) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz serves GET /readyz: ready when the store answers a ping within readyTimeout.
func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	if a.ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := a.ready.Ping(ctx); err != nil {
			// The reason goes out too: probes and operators are this endpoint's readers.
			// writeError logs it and sets Retry-After.
			a.writeError(w, r, &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable",
				Message: "store ping failed: " + err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

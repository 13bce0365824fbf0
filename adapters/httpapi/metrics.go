package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"
)

// unmatchedRoute labels requests no route matched (404s and 405s): raw paths never
// become label values, or any client could mint them without bound.
const unmatchedRoute = "unmatched"

type routeKey struct{}

// withMetrics counts every request by method, route template and status. The route is
// learnt after routing (noteRoute, a router middleware, writes it into the slot this
// puts in the context), so the count covers every answer, 404s and panics included.
func (a *api) withMetrics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		route := unmatchedRoute
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, &route)))
		a.metrics.Request(r.Method, route, rec.statusOrOK(), time.Since(start))
	})
}

// noteRoute records the matched route's template for withMetrics.
func noteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slot, ok := r.Context().Value(routeKey{}).(*string); ok {
			if tpl, err := mux.CurrentRoute(r).GetPathTemplate(); err == nil {
				*slot = tpl
			}
		}
		next.ServeHTTP(w, r)
	})
}

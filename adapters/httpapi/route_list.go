package httpapi

import "github.com/gorilla/mux"

// Route is one route of the API: a method and a gorilla/mux path template such as
// "/v1/alarms/{id}/pause".
type Route struct {
	Method   string
	Template string
}

// Routes lists the routes New(…, opts) serves, in registration order, read from the
// router itself: the admin routes only with opts.Admin, the endpoint routes only with
// opts.Endpoints, the token routes only with opts.Tokens, /metrics only with
// opts.MetricsHandler. It is for tests that must cover every route (the auth matrix of
// test/api), so a new route cannot be forgotten; no handler is called, so the use cases
// are not needed.
func Routes(opts Options) []Route {
	a := newAPI(nil, opts)
	var out []Route
	_ = a.routes().Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		if err != nil {
			return nil // a route without a path; routes() makes none
		}
		methods, err := r.GetMethods()
		if err != nil {
			return nil // a route for every method; routes() makes none
		}
		for _, m := range methods {
			out = append(out, Route{Method: m, Template: tpl})
		}
		return nil
	})
	return out
}

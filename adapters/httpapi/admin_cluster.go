package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
)

// adminOverview serves GET /admin/v1/overview.
func (a *api) adminOverview(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	o, err := a.cluster.Overview(r.Context())
	a.answer(w, r, err, "overview", newOverviewView(o))
}

// adminWorkers serves GET /admin/v1/workers.
func (a *api) adminWorkers(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	ws, err := a.cluster.Workers(r.Context())
	a.answer(w, r, err, "workers", views(ws, newWorkerView))
}

// adminDispatch serves GET /admin/v1/dispatch (change nil) and the pause and resume
// POSTs, answering the gate as it is after the call.
func (a *api) adminDispatch(change func(operator.DispatchSwitch, context.Context, string) (domain.DispatchState, error)) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, tok domain.Token) {
		var st domain.DispatchState
		var err error
		if change == nil {
			st, err = a.dispatch.Dispatch(r.Context())
		} else {
			st, err = change(a.dispatch, r.Context(), tok.ID)
		}
		a.answer(w, r, err, "dispatch", newDispatchView(st, time.Now()))
	}
}

// adminRetention serves GET /admin/v1/retention.
func (a *api) adminRetention(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	st, err := a.retention.Retention(r.Context())
	a.answer(w, r, err, "retention", newRetentionView(st))
}

// adminRunRetention serves POST /admin/v1/retention/run.
func (a *api) adminRunRetention(w http.ResponseWriter, r *http.Request, tok domain.Token) {
	run, err := a.retention.RunRetention(r.Context(), tok.ID)
	a.answer(w, r, err, "run", newRetentionRunView(run))
}

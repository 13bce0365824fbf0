package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
)

// Admin is every operator use case the admin API drives (*admin.Admin), as Options takes
// it: the dashboard's too, declared once in internal/operator, where each group of
// handlers finds the part it calls.
type Admin = operator.Admin

// adminHandler serves an admin request on behalf of the admin token tok.
type adminHandler func(w http.ResponseWriter, r *http.Request, tok domain.Token)

// adminRead lets through tokens of either admin scope; adminChange only "admin". A
// valid token without the scope is a 403 (it is known, it may just not do this), and
// the request reaches no use case.
func (a *api) adminRead(h adminHandler) http.Handler { return a.admin(h, domain.Token.CanReadAdmin) }

func (a *api) adminChange(h adminHandler) http.Handler {
	return a.admin(h, domain.Token.CanChangeAdmin)
}

func (a *api) admin(h adminHandler, allowed func(domain.Token) bool) http.Handler {
	return a.authenticated(func(w http.ResponseWriter, r *http.Request, tok domain.Token) {
		if !allowed(tok) {
			msg := "this route needs an admin token (chronos token create --admin)"
			if tok.CanReadAdmin() {
				msg = "this token is read-only (admin:read); this route changes things and needs an admin token"
			}
			a.writeError(w, r, errForbidden(msg))
			return
		}
		h(w, r, tok)
	})
}

// adminRoutes adds /admin/v1 to r. Without an Admin they are not served at all.
func (a *api) adminRoutes(r *mux.Router) {
	if a.adminAlarms == nil {
		return
	}
	get, post, del := http.MethodGet, http.MethodPost, http.MethodDelete
	r.Handle("/admin/v1/overview", a.adminRead(a.adminOverview)).Methods(get)
	r.Handle("/admin/v1/readyz", a.adminRead(a.adminReadyz)).Methods(get)
	r.Handle("/admin/v1/alarms", a.adminRead(a.adminListAlarms)).Methods(get)
	r.Handle("/admin/v1/alarms/retry", a.adminChange(a.adminBulk(domain.BulkRetry))).Methods(post)
	r.Handle("/admin/v1/alarms/cancel", a.adminChange(a.adminBulk(domain.BulkCancel))).Methods(post)
	r.Handle("/admin/v1/alarms/delete", a.adminChange(a.adminBulk(domain.BulkDelete))).Methods(post)
	r.Handle("/admin/v1/alarms/{id}", a.adminRead(adminAction(a, a.adminAlarms, readAlarm))).Methods(get)
	r.Handle("/admin/v1/alarms/{id}", a.adminChange(a.adminDelete)).Methods(del)
	r.Handle("/admin/v1/alarms/{id}/events", a.adminRead(a.adminEvents)).Methods(get)
	r.Handle("/admin/v1/alarms/{id}/attempts", a.adminRead(a.adminAttempts)).Methods(get)
	r.Handle("/admin/v1/alarms/{id}/retry", a.adminChange(adminAction(a, a.adminActions, operator.AlarmActions.Retry))).Methods(post)
	r.Handle("/admin/v1/alarms/{id}/cancel", a.adminChange(adminAction(a, a.adminActions, operator.AlarmActions.Cancel))).Methods(post)
	r.Handle("/admin/v1/workers", a.adminRead(a.adminWorkers)).Methods(get)
	r.Handle("/admin/v1/dispatch", a.adminRead(a.adminDispatch(nil))).Methods(get)
	r.Handle("/admin/v1/dispatch/pause", a.adminChange(a.adminDispatch(operator.DispatchSwitch.PauseDispatch))).Methods(post)
	r.Handle("/admin/v1/dispatch/resume", a.adminChange(a.adminDispatch(operator.DispatchSwitch.ResumeDispatch))).Methods(post)
	r.Handle("/admin/v1/retention", a.adminRead(a.adminRetention)).Methods(get)
	r.Handle("/admin/v1/retention/run", a.adminChange(a.adminRunRetention)).Methods(post)
	r.Handle("/admin/v1/store/backup", a.adminChange(a.adminBackup)).Methods(post)
}

package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Alarms is every owner-facing use case the API drives (*owners.Alarms), as New takes
// it; each group of handlers holds only the part it calls. A call about an alarm is
// scoped by owner; the creates take it in the Spec.
type Alarms interface {
	AlarmCreator
	AlarmReader
	AlarmActions
	AlarmEditor
	SchedulePlanner
	AlarmBulk
}

// Endpoints is every endpoint use case the API drives (*admin.Endpoints): an admin's, on
// any owner's endpoints, and List for the owner's own.
type Endpoints interface {
	EndpointReader
	EndpointWriter
}

// Authenticator resolves a bearer token (*admin.Tokens). It returns an error wrapping
// domain.ErrUnauthenticated for an unknown or revoked token; any other error is a store
// failure and is answered as such, not as a 401.
type Authenticator interface {
	Authenticate(ctx context.Context, plainToken string) (domain.Token, error)
}

// RateLimiter paces each token's requests (*owners.RateLimiter). Allow takes one request
// of the token with this id, or refuses it with an error wrapping domain.ErrRateLimited
// (a *domain.LimitError saying when to retry).
type RateLimiter interface {
	Allow(tokenID string) error
}

// AuthFailureLimiter paces, per client address, the requests that fail to authenticate
// (*owners.AuthFailureLimiter); remote is the request's RemoteAddr. Allow refuses an
// address with no failure left, with an error wrapping domain.ErrRateLimited (a
// *domain.LimitError saying when to retry), and takes nothing; Failed counts one.
type AuthFailureLimiter interface {
	Allow(remote string) error
	Failed(remote string)
}

// Pinger reports whether the store answers; /readyz calls it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// DefaultMaxBodyBytes bounds a request body: the largest payload the domain accepts
// plus room for the rest of the alarm. A body over the limit is a 413; a payload over
// domain.MaxPayloadBytes inside a body under it is a 400 naming "payload".
const DefaultMaxBodyBytes = 2 * domain.MaxPayloadBytes

// Options tune New. The zero value is usable.
type Options struct {
	// MaxBodyBytes bounds request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxBatchBodyBytes bounds the body of POST /v1/alarms/batch; 0 means
	// DefaultMaxBatchBodyBytes.
	MaxBatchBodyBytes int64
	// Logger receives access logs (debug), store failures (warn) and internal errors
	// and panics (error). nil means no logging.
	Logger *zap.Logger
	// Admin serves /admin/v1 to admin-scoped tokens; nil leaves those routes out.
	Admin Admin
	// Endpoints serves the endpoint routes: the admin's under /admin/v1 and the owner's
	// GET /v1/endpoints; nil leaves them out.
	Endpoints Endpoints
	// Tokens serves /admin/v1/tokens (issue, list, revoke); nil leaves them out.
	Tokens Tokens
	// Calendars serves the owner's /v1/calendars routes; nil leaves them out.
	Calendars Calendars
	// Redeliver serves POST /v1/alarms/{id}/redeliver and /v1/alarms/redeliver; nil
	// leaves them out.
	Redeliver Redeliverer
	// ShowPayloads shows payloads and wake messages in admin views; by default they are
	// redacted to their size and SHA-256.
	ShowPayloads bool
	// Metrics counts every request by route template and status; nil: none.
	Metrics ports.Metrics
	// MetricsHandler, when set, is served without a token at GET /metrics.
	MetricsHandler http.Handler
	// RateLimiter paces every request that carries a valid token (/v1, /admin/v1),
	// keyed by the token's id; nil: none. Requests without one (health, metrics, the
	// document, a 401) are not paced.
	RateLimiter RateLimiter
	// AuthFailures paces the requests to /v1 and /admin/v1 that fail to authenticate (no
	// token, an unknown or revoked one) per client address, and refuses (429) an address
	// past its limit before its token is looked up; nil: none.
	AuthFailures AuthFailureLimiter
	// Tracer, when set, records a span for every create (docs/tracing.md); nil: none,
	// and no cost.
	Tracer trace.Tracer
}

// api holds what the handlers share. Each use case field is the part of Alarms,
// Admin or Endpoints that one group of handlers calls; the optional ones are nil when
// New was given none, and their routes are left out.
type api struct {
	creator   AlarmCreator
	reader    AlarmReader
	actions   AlarmActions
	editor    AlarmEditor
	schedules SchedulePlanner
	bulkOwner AlarmBulk

	adminAlarms  operator.AlarmReader
	adminActions operator.AlarmActions
	bulk         operator.BulkActions
	cluster      operator.Cluster
	dispatch     operator.DispatchSwitch
	retention    operator.Retention
	backups      operator.Backups

	endpoints       EndpointReader
	endpointChanges EndpointWriter
	tokens          Tokens
	calendars       Calendars
	redeliver       Redeliverer

	auth         Authenticator
	ready        Pinger
	health       storeHealth
	maxBody      int64
	maxBatchBody int64
	log          *zap.Logger
	showPayloads bool
	metrics      ports.Metrics
	metricsPage  http.Handler
	limiter      RateLimiter
	authFailures AuthFailureLimiter
	tracer       trace.Tracer
}

// New returns the API's handler, middlewares included. ready may be nil, in which case
// /readyz reports ready whenever the process serves.
func New(alarms Alarms, auth Authenticator, ready Pinger, opts Options) http.Handler {
	a := newAPI(alarms, opts)
	a.auth, a.ready, a.maxBody, a.log = auth, ready, opts.MaxBodyBytes, opts.Logger
	a.showPayloads, a.metrics, a.limiter = opts.ShowPayloads, opts.Metrics, opts.RateLimiter
	a.tracer, a.authFailures = opts.Tracer, opts.AuthFailures
	if a.metrics == nil {
		a.metrics = ports.NopMetrics{}
	}
	if a.maxBody <= 0 {
		a.maxBody = DefaultMaxBodyBytes
	}
	if a.maxBatchBody = opts.MaxBatchBodyBytes; a.maxBatchBody <= 0 {
		a.maxBatchBody = DefaultMaxBatchBodyBytes
	}
	if a.log == nil {
		a.log = zap.NewNop()
	}
	return a.withRequestID(a.withMetrics(a.withAccessLog(a.withRecovery(a.withIgnoredBody(a.routes())))))
}

// newAPI hands each group of handlers its part of the use cases; New and Routes share
// it, so the routes Routes lists are those New serves.
func newAPI(alarms Alarms, opts Options) *api {
	a := &api{
		creator: alarms, reader: alarms, actions: alarms, editor: alarms, schedules: alarms, bulkOwner: alarms,
		endpoints: opts.Endpoints, endpointChanges: opts.Endpoints, tokens: opts.Tokens, calendars: opts.Calendars,
		redeliver:   opts.Redeliver,
		metricsPage: opts.MetricsHandler,
	}
	if admin := opts.Admin; admin != nil {
		a.adminAlarms, a.adminActions, a.bulk, a.cluster = admin, admin, admin, admin
		a.dispatch, a.retention, a.backups = admin, admin, admin
	}
	return a
}

func (a *api) routes() *mux.Router {
	r := mux.NewRouter()
	r.Use(noteRoute)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		a.writeError(w, req, errNoRoute)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		a.methodNotAllowed(r, w, req)
	})

	r.HandleFunc("/healthz", a.healthz).Methods(http.MethodGet)
	r.HandleFunc("/readyz", a.readyz).Methods(http.MethodGet)
	if a.metricsPage != nil {
		r.Handle("/metrics", a.metricsPage).Methods(http.MethodGet)
	}
	r.HandleFunc("/openapi.json", a.openAPI).Methods(http.MethodGet)

	r.Handle("/v1/alarms", a.owned(a.createAlarm)).Methods(http.MethodPost)
	r.Handle("/v1/alarms", a.owned(a.listAlarms)).Methods(http.MethodGet)
	r.Handle("/v1/alarms/batch", a.owned(a.createAlarmBatch)).Methods(http.MethodPost)
	r.Handle("/v1/alarms/bulk", a.owned(a.ownerBulk)).Methods(http.MethodPost)
	a.redeliverRoutes(r) // before /v1/alarms/{id}: "redeliver" is not an id
	r.Handle("/v1/alarms/{id}", a.owned(ownerAction(a, a.reader, AlarmReader.Get))).Methods(http.MethodGet)
	r.Handle("/v1/alarms/{id}", a.owned(ownerAction(a, a.actions, AlarmActions.Cancel))).Methods(http.MethodDelete)
	r.Handle("/v1/alarms/{id}", a.owned(a.updateAlarm)).Methods(http.MethodPatch)
	r.Handle("/v1/alarms/{id}/pause", a.owned(a.pauseAlarm)).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/resume", a.owned(ownerAction(a, a.actions, AlarmActions.Resume))).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/trigger", a.owned(ownerAction(a, a.actions, AlarmActions.Trigger))).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/skip", a.owned(ownerAction(a, a.actions, AlarmActions.SkipNext))).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/upcoming", a.owned(a.upcoming)).Methods(http.MethodGet)
	r.Handle("/v1/alarms/{id}/backfill", a.owned(a.backfill)).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/events", a.owned(a.listEvents)).Methods(http.MethodGet)
	r.Handle("/v1/alarms/{id}/attempts", a.owned(a.listAttempts)).Methods(http.MethodGet)
	r.Handle("/v1/schedules/preview", a.owned(a.preview)).Methods(http.MethodPost)
	a.adminRoutes(r)
	a.endpointRoutes(r)
	a.calendarRoutes(r)
	a.tokenRoutes(r)
	return r
}

// methodNotAllowed answers 405 with the Allow header mux leaves out: every method for
// which some route matches this path.
func (a *api) methodNotAllowed(r *mux.Router, w http.ResponseWriter, req *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := req.WithContext(req.Context()) // a shallow copy, to change its method
		probe.Method = m
		var match mux.RouteMatch
		if r.Match(probe, &match) && match.MatchErr == nil {
			allowed = append(allowed, m)
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	a.writeError(w, req, &apiError{
		Status:  http.StatusMethodNotAllowed,
		Code:    "method_not_allowed",
		Message: req.Method + " is not allowed here; allowed: " + strings.Join(allowed, ", "),
	})
}

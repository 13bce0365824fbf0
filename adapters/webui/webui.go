package webui

import (
	"context"
	"embed"
	"io/fs"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Admin is every operator use case the dashboard drives (*admin.Admin), as New takes it:
// the admin API's (internal/operator) and OwnerActions. Each page holds only the part
// it calls.
type Admin interface {
	operator.Admin
	OwnerActions
}

// OwnerActions are the owner's actions an operator may take on any alarm (*admin.Admin).
// by is the id of the session's admin token; the use case records it.
type OwnerActions interface {
	Pause(ctx context.Context, id, by string) (domain.Alarm, error)
	Resume(ctx context.Context, id, by string) (domain.Alarm, error)
	Trigger(ctx context.Context, id, by string) (domain.Alarm, error)
}

// Authenticator checks tokens (*admin.Tokens): a plain one at sign-in, its hash on every
// request of the session after.
type Authenticator interface {
	Authenticate(ctx context.Context, plain string) (domain.Token, error)
	AuthenticateHash(ctx context.Context, hash string) (domain.Token, error)
}

// Options tune New. The zero value is usable.
type Options struct {
	// SessionTTL is how long a sign-in lasts; 0 means DefaultSessionTTL.
	SessionTTL time.Duration
	// ShowPayloads shows payloads and wake messages; by default only their size and
	// SHA-256, as in the admin API.
	ShowPayloads bool
	// Logger receives failures the pages answer with a generic message. nil: none.
	Logger *zap.Logger
	// SecureCookies marks the dashboard's cookies (the session's and the one-line report
	// of an action's) Secure on every response: the dashboard is reached over HTTPS
	// through a proxy that terminates TLS (serve --public-url https://...). A request that
	// came over TLS gets Secure cookies anyway.
	SecureCookies bool
	// Now is the clock of sessions; nil means time.Now.
	Now func() time.Time
	// Tokens serves the tokens page (list; issue and revoke for an admin session); nil
	// leaves it out.
	Tokens operator.Tokens
	// Endpoints serves the endpoints page; nil leaves it out.
	Endpoints EndpointLister
	// Calendars serves the calendars page; nil leaves it out.
	Calendars CalendarLister
	// AuthFailures paces failed sign-ins and unknown session cookies per client address,
	// and refuses (429) an address past its limit before its token or session is looked
	// up; nil: none.
	AuthFailures AuthFailureLimiter
}

// AuthFailureLimiter paces, per client address, the requests that fail to authenticate
// (*owners.AuthFailureLimiter); remote is the request's RemoteAddr. Allow refuses an
// address with no failure left (a *domain.LimitError saying when to retry) and takes
// nothing; Failed counts one.
type AuthFailureLimiter interface {
	Allow(remote string) error
	Failed(remote string)
}

// EndpointLister lists the owners' endpoints (*admin.Endpoints): one owner's by name, or
// every owner's by owner then name when owner is "".
type EndpointLister interface {
	List(ctx context.Context, owner string) ([]domain.Endpoint, error)
}

// DefaultSessionTTL is how long a dashboard sign-in lasts by default: a working day.
const DefaultSessionTTL = 12 * time.Hour

// Prefix is where the dashboard is mounted.
const Prefix = "/ui/"

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// UI is the dashboard: an http.Handler for Prefix, and the sampler of its charts.
type UI struct {
	// The parts of Admin the pages call.
	alarms       operator.AlarmReader
	actions      operator.AlarmActions
	ownerActions OwnerActions
	bulkActions  operator.BulkActions
	cluster      operator.Cluster
	dispatch     operator.DispatchSwitch
	retention    operator.Retention
	backups      operator.Backups

	auth      Authenticator
	tokens    operator.Tokens
	endpoints EndpointLister
	calendars CalendarLister
	sessions  *sessions
	pages     *pages
	sampler   *Sampler
	opts      Options
	log       *zap.Logger
	handler   http.Handler
}

// New builds the dashboard. store keeps the sessions (the hashes of their ids), shared
// by every node of the cluster.
func New(admin Admin, auth Authenticator, store ports.SessionStore, opts Options) (*UI, error) {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	pages, err := loadPages()
	if err != nil {
		return nil, err
	}
	u := &UI{
		auth: auth, tokens: opts.Tokens, endpoints: opts.Endpoints, calendars: opts.Calendars, pages: pages, opts: opts, log: log,
		sessions: newSessions(store, opts.SessionTTL, opts.Now, opts.SecureCookies),
		sampler:  NewSampler(admin, SampleInterval, SamplePoints),
	}
	if admin != nil {
		u.alarms, u.actions, u.ownerActions, u.bulkActions = admin, admin, admin, admin
		u.cluster, u.dispatch, u.retention, u.backups = admin, admin, admin, admin
	}
	u.handler = withSecurityHeaders(u.routes())
	return u, nil
}

// ServeHTTP serves everything under Prefix.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) { u.handler.ServeHTTP(w, r) }

// Sampler is the sampler behind the charts; run it (Sampler.Run) for as long as the
// dashboard is served.
func (u *UI) Sampler() *Sampler { return u.sampler }

func (u *UI) routes() http.Handler {
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(u.notFound)
	static, _ := fs.Sub(staticFiles, "static")
	r.PathPrefix(Prefix + "static/").Handler(http.StripPrefix(Prefix+"static/", cacheStatic(http.FileServerFS(static)))).Methods(http.MethodGet)
	r.HandleFunc(Prefix+"login", u.loginPage).Methods(http.MethodGet)
	r.HandleFunc(Prefix+"login", u.login).Methods(http.MethodPost)
	r.Handle(Prefix+"logout", u.posting(u.logout)).Methods(http.MethodPost)

	r.Handle(Prefix, u.reading(u.overviewPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"fragments/overview", u.reading(u.overviewFragment)).Methods(http.MethodGet)
	r.Handle(Prefix+"alarms", u.reading(u.alarmsPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"alarms/bulk", u.changing(u.bulk)).Methods(http.MethodPost)
	r.Handle(Prefix+"alarms/{id}", u.reading(u.alarmPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"alarms/{id}/{action:retry|cancel|pause|resume|trigger|delete}", u.changing(u.alarmAction)).Methods(http.MethodPost)
	r.Handle(Prefix+"failed", u.reading(u.failedPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"nodes", u.reading(u.nodesPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"settings", u.reading(u.settingsPage)).Methods(http.MethodGet)
	r.Handle(Prefix+"settings/dispatch/{action:pause|resume}", u.changing(u.dispatchAction)).Methods(http.MethodPost)
	r.Handle(Prefix+"settings/retention/run", u.changing(u.runRetention)).Methods(http.MethodPost)
	r.Handle(Prefix+"settings/backup", u.changing(u.backup)).Methods(http.MethodPost)
	if u.tokens != nil {
		r.Handle(Prefix+"tokens", u.reading(u.tokensPage)).Methods(http.MethodGet)
		r.Handle(Prefix+"tokens", u.changing(u.issueToken)).Methods(http.MethodPost)
		r.Handle(Prefix+"tokens/{id}/revoke", u.changing(u.revokeToken)).Methods(http.MethodPost)
	}
	if u.calendars != nil {
		r.Handle(Prefix+"calendars", u.reading(u.calendarsPage)).Methods(http.MethodGet)
	}
	if u.endpoints != nil {
		r.Handle(Prefix+"endpoints", u.reading(u.endpointsPage)).Methods(http.MethodGet)
	}
	return r
}

// cacheStatic lets browsers keep the embedded files for an hour: they change only with
// the binary.
func cacheStatic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

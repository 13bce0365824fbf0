package httpapi

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/adapters/internal/pathvar"
	"github.com/chronoshq/chronos/domain"
)

// EndpointReader reads the owners' endpoints (*admin.Endpoints).
type EndpointReader interface {
	Get(ctx context.Context, owner, name string) (domain.Endpoint, error)
	// List returns the owner's endpoints by name; every owner's when owner is "".
	List(ctx context.Context, owner string) ([]domain.Endpoint, error)
	// Fingerprint stands for a secret in the admin's views: stable, and no check of a
	// guess (app/secret_fingerprint.go).
	Fingerprint(ctx context.Context, secret string) (string, error)
}

// endpointRoutes adds the endpoint routes to r: the admin's, which register, read,
// change and delete any owner's endpoints, and the owner's read of its own, which shows
// no secret. Without an Endpoints they are not served at all.
func (a *api) endpointRoutes(r *mux.Router) {
	if a.endpoints == nil {
		return
	}
	const one = "/admin/v1/owners/{owner}/endpoints/{name}"
	r.Handle("/v1/endpoints", a.owned(a.listMyEndpoints)).Methods(http.MethodGet)
	r.Handle("/admin/v1/endpoints", a.adminRead(a.adminListAllEndpoints)).Methods(http.MethodGet)
	r.Handle("/admin/v1/owners/{owner}/endpoints", a.adminRead(a.adminListEndpoints)).Methods(http.MethodGet)
	r.Handle("/admin/v1/owners/{owner}/endpoints", a.adminChange(a.adminCreateEndpoint)).Methods(http.MethodPost)
	r.Handle(one, a.adminRead(a.oneEndpoint(a.adminGetEndpoint))).Methods(http.MethodGet)
	r.Handle(one, a.adminChange(a.oneEndpoint(a.adminUpdateEndpoint))).Methods(http.MethodPatch)
	r.Handle(one, a.adminChange(a.adminDeleteEndpoint)).Methods(http.MethodDelete)
}

// listMyEndpoints serves GET /v1/endpoints: the names an owner may give its alarms'
// endpoint, and where and how their wakes go, without the secrets.
func (a *api) listMyEndpoints(w http.ResponseWriter, r *http.Request, owner string) {
	es, err := a.endpoints.List(r.Context(), owner)
	a.answer(w, r, endpointError(err), "endpoints", views(es, newEndpointView))
}

// endpointView is an endpoint as its owner sees it: never its secrets.
type endpointView struct {
	Name           string  `json:"name"`
	URL            string  `json:"url"`
	TimeoutSeconds float64 `json:"timeout_seconds"` // 0: the server's delivery timeout
	MaxInFlight    int     `json:"max_in_flight"`   // 0: no cap of its own
	RatePerSecond  float64 `json:"rate_per_second"` // 0: unpaced
	FailureURL     string  `json:"failure_url"`     // "" for none
}

func newEndpointView(e domain.Endpoint) endpointView {
	return endpointView{Name: e.Name, URL: domain.RedactedURL(e.URL), TimeoutSeconds: e.Timeout.Seconds(), MaxInFlight: e.MaxInFlight,
		RatePerSecond: e.RatePerSecond, FailureURL: domain.RedactedURL(e.FailureURL)}
}

// adminEndpointView is an endpoint as an admin sees it: the owner's view plus its owner,
// its stamps, and each secret as its size and fingerprint (app/secret_fingerprint.go):
// an operator can tell which secrets an endpoint holds, and which endpoints share one,
// but neither sees a secret nor can check a guess of one. Writes take the secrets in
// full.
type adminEndpointView struct {
	Owner string `json:"owner"`
	endpointView
	Secrets   []secretView `json:"secrets"`
	CreatedAt jsonio.Time  `json:"created_at"`
	UpdatedAt jsonio.Time  `json:"updated_at"`
}

type secretView struct {
	Size        int    `json:"size"`
	Fingerprint string `json:"fingerprint"`
	// Weak flags a secret shorter than a new one may be, stored before the rule: it
	// still signs, and should be rotated out.
	Weak bool `json:"weak,omitempty"`
}

func (a *api) newAdminEndpointView(ctx context.Context, e domain.Endpoint) (adminEndpointView, error) {
	v := adminEndpointView{Owner: e.Owner, endpointView: newEndpointView(e), Secrets: make([]secretView, len(e.Secrets)),
		CreatedAt: jsonio.Time(e.CreatedAt), UpdatedAt: jsonio.Time(e.UpdatedAt)}
	for i, s := range e.Secrets {
		fp, err := a.endpoints.Fingerprint(ctx, s)
		if err != nil {
			return adminEndpointView{}, err
		}
		v.Secrets[i] = secretView{Size: len(s), Fingerprint: fp, Weak: domain.WeakSecret(s)}
	}
	return v, nil
}

// maxOwnerLen is the longest owner a token can have (app.Tokens): no longer one can
// own an endpoint.
const maxOwnerLen = 200

// ownerParam returns the {owner} path variable, or a 400 naming "owner" when no token
// could have it (too long, not UTF-8, control characters): the store never sees it.
func ownerParam(r *http.Request) (string, error) {
	owner := mux.Vars(r)["owner"]
	if owner == "" || len(owner) > maxOwnerLen || !pathvar.Printable(owner) {
		return "", invalidArgument("owner", "must be an owner a token can have: 1 to 200 bytes of UTF-8 without control characters")
	}
	return owner, nil
}

// endpointName returns the {name} path variable, or false when it cannot name an
// endpoint (domain.ValidateEndpoint's rule is left to the store: an unknown name is a
// 404 either way; this keeps bytes the store may choke on away from it).
func endpointName(r *http.Request) (string, bool) {
	name := mux.Vars(r)["name"]
	return name, pathvar.Valid(name)
}

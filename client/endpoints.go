package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Endpoint is a named delivery target of an owner, as the owner sees it
// (ListMyEndpoints): where the wakes of its alarms that name it go, and how much of a
// node's delivery they may hold. Never its secrets.
type Endpoint struct {
	Name string
	URL  string
	// Timeout bounds one delivery; 0 means the server's --delivery-timeout.
	Timeout time.Duration
	// MaxInFlight caps the endpoint's wakes in flight on one node; 0: no cap of its own.
	MaxInFlight int
	// RatePerSecond paces the endpoint's wakes on one node; 0: unpaced.
	RatePerSecond float64
	// FailureURL receives a notice when one of its alarms fails; "" for none.
	FailureURL string
}

// AdminEndpoint is an endpoint as /admin/v1 shows it: the owner's view plus its owner,
// its stamps, and each secret as its size and fingerprint, in order. No answer of the
// API carries a secret but the one the server made for a create that gave none
// (MadeSecret); writes take them in full.
type AdminEndpoint struct {
	Endpoint
	Owner     string
	Secrets   []SecretDigest
	CreatedAt time.Time
	UpdatedAt time.Time
	// MadeSecret is set only by CreateEndpoint when it gave no secrets: the one the
	// server made ("whsec_" and base64 of 32 random bytes). Keep it now: no answer shows
	// it again.
	MadeSecret string
}

// SecretDigest stands for one secret of an endpoint: enough to tell secrets apart (and
// which endpoints share one), never the secret nor a way to check a guess of it.
type SecretDigest struct {
	Size        int    `json:"size"`        // bytes
	Fingerprint string `json:"fingerprint"` // stable per secret (an HMAC under a key of the server's)
	// Weak flags a secret shorter than a new one may be (24 bytes of key), stored
	// before the rule: it still signs; rotate it out.
	Weak bool `json:"weak"`
}

// endpointWire is an endpoint as the API writes it, the owner's and the admin's view
// alike (the owner's lacks the admin's members).
type endpointWire struct {
	Owner          string         `json:"owner"`
	Name           string         `json:"name"`
	URL            string         `json:"url"`
	Secrets        []SecretDigest `json:"secrets"`
	TimeoutSeconds float64        `json:"timeout_seconds"`
	MaxInFlight    int            `json:"max_in_flight"`
	RatePerSecond  float64        `json:"rate_per_second"`
	FailureURL     string         `json:"failure_url"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
}

func (w endpointWire) endpoint() Endpoint {
	return Endpoint{Name: w.Name, URL: w.URL, Timeout: seconds(w.TimeoutSeconds), MaxInFlight: w.MaxInFlight,
		RatePerSecond: w.RatePerSecond, FailureURL: w.FailureURL}
}

func (w endpointWire) admin() AdminEndpoint {
	return AdminEndpoint{Endpoint: w.endpoint(), Owner: w.Owner, Secrets: w.Secrets, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// CreateEndpoint is an endpoint to register. Zero leaves an optional field at its
// default (the server's timeout, no cap, unpaced, no failure URL).
type CreateEndpoint struct {
	Name string
	URL  string
	// Secrets sign every wake to the endpoint, each one (several while rotating), each
	// with at least 24 bytes of key. "whsec_" and base64 is a Standard Webhooks key.
	// None: the server makes one, returned in AdminEndpoint.MadeSecret.
	Secrets       []string
	Timeout       time.Duration // kept to the millisecond; 100ms to 5m
	MaxInFlight   int
	RatePerSecond float64
	FailureURL    string
}

// UpdateEndpoint changes the fields it sets (non-nil) and leaves the others. Secrets,
// when non-nil, replace the whole list: add the new one first to rotate without a gap,
// and drop the old one later.
type UpdateEndpoint struct {
	URL           *string
	Secrets       []string
	Timeout       *time.Duration // 0 means the server's --delivery-timeout
	MaxInFlight   *int
	RatePerSecond *float64
	FailureURL    *string // "" for none
}

type endpointRequestWire struct {
	Name           string   `json:"name,omitempty"`
	URL            *string  `json:"url,omitempty"`
	Secrets        []string `json:"secrets,omitempty"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty"`
	MaxInFlight    *int     `json:"max_in_flight,omitempty"`
	RatePerSecond  *float64 `json:"rate_per_second,omitempty"`
	FailureURL     *string  `json:"failure_url,omitempty"`
}

// CreateEndpoint registers an endpoint for owner (POST /admin/v1/owners/{owner}/endpoints).
// A name the owner has already is a conflict (IsConflict); a refused field is invalid
// (IsInvalid, Error.Field names it).
func (a *Admin) CreateEndpoint(ctx context.Context, owner string, req CreateEndpoint) (AdminEndpoint, error) {
	path, err := endpointsPath(owner)
	if err != nil {
		return AdminEndpoint{}, err
	}
	w := endpointRequestWire{Name: req.Name, URL: &req.URL, Secrets: req.Secrets, MaxInFlight: &req.MaxInFlight,
		RatePerSecond: &req.RatePerSecond, FailureURL: &req.FailureURL}
	timeout := req.Timeout.Seconds()
	w.TimeoutSeconds = &timeout
	return a.endpointCall(ctx, http.MethodPost, path, w)
}

// ListEndpoints returns owner's endpoints by name (GET
// /admin/v1/owners/{owner}/endpoints), or every owner's, by owner then name, when owner
// is "" (GET /admin/v1/endpoints).
func (a *Admin) ListEndpoints(ctx context.Context, owner string) ([]AdminEndpoint, error) {
	path := "/admin/v1/endpoints"
	if owner != "" {
		path = "/admin/v1/owners/" + url.PathEscape(owner) + "/endpoints"
	}
	var out struct {
		Endpoints []endpointWire `json:"endpoints"`
	}
	if err := a.c.do(ctx, call{method: http.MethodGet, path: path}, &out); err != nil {
		return nil, err
	}
	es := make([]AdminEndpoint, len(out.Endpoints))
	for i, w := range out.Endpoints {
		es[i] = w.admin()
	}
	return es, nil
}

// GetEndpoint returns one of owner's endpoints (GET
// /admin/v1/owners/{owner}/endpoints/{name}); an unknown one is not_found (IsNotFound).
func (a *Admin) GetEndpoint(ctx context.Context, owner, name string) (AdminEndpoint, error) {
	path, err := endpointPath(owner, name)
	if err != nil {
		return AdminEndpoint{}, err
	}
	return a.endpointCall(ctx, http.MethodGet, path, nil)
}

// UpdateEndpoint changes the fields req sets of one of owner's endpoints (PATCH
// /admin/v1/owners/{owner}/endpoints/{name}) and returns it as changed.
func (a *Admin) UpdateEndpoint(ctx context.Context, owner, name string, req UpdateEndpoint) (AdminEndpoint, error) {
	path, err := endpointPath(owner, name)
	if err != nil {
		return AdminEndpoint{}, err
	}
	w := endpointRequestWire{URL: req.URL, Secrets: req.Secrets, MaxInFlight: req.MaxInFlight,
		RatePerSecond: req.RatePerSecond, FailureURL: req.FailureURL}
	if req.Secrets != nil && len(req.Secrets) == 0 {
		return AdminEndpoint{}, errors.New("client: UpdateEndpoint: an endpoint needs at least one secret (nil Secrets leaves them)")
	}
	if req.Timeout != nil {
		s := req.Timeout.Seconds()
		w.TimeoutSeconds = &s
	}
	return a.endpointCall(ctx, http.MethodPatch, path, w)
}

// DeleteEndpoint deletes one of owner's endpoints (DELETE
// /admin/v1/owners/{owner}/endpoints/{name}). Alarms naming it keep the name; their
// wakes fail until an endpoint of that name exists again.
func (a *Admin) DeleteEndpoint(ctx context.Context, owner, name string) error {
	path, err := endpointPath(owner, name)
	if err != nil {
		return err
	}
	return a.c.do(ctx, call{method: http.MethodDelete, path: path}, nil)
}

// ListMyEndpoints returns the token owner's endpoints by name, without secrets (GET
// /v1/endpoints): the names CreateAlarm.Endpoint may take.
func (c *Client) ListMyEndpoints(ctx context.Context) ([]Endpoint, error) {
	var out struct {
		Endpoints []endpointWire `json:"endpoints"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/endpoints"}, &out); err != nil {
		return nil, err
	}
	es := make([]Endpoint, len(out.Endpoints))
	for i, w := range out.Endpoints {
		es[i] = w.endpoint()
	}
	return es, nil
}

func (a *Admin) endpointCall(ctx context.Context, method, path string, body any) (AdminEndpoint, error) {
	cl := call{method: method, path: path}
	if body != nil {
		b, err := marshal(body)
		if err != nil {
			return AdminEndpoint{}, err
		}
		cl.body = b
	}
	var out struct {
		Endpoint endpointWire `json:"endpoint"`
		Secret   string       `json:"secret"` // only a create that gave no secrets
	}
	err := a.c.do(ctx, cl, &out)
	e := out.Endpoint.admin()
	e.MadeSecret = out.Secret
	return e, err
}

var (
	errNoOwner        = errors.New("client: an owner is required")
	errNoEndpointName = errors.New("client: an endpoint name is required")
)

// endpointsPath is /admin/v1/owners/{owner}/endpoints, escaped.
func endpointsPath(owner string) (string, error) {
	if owner == "" {
		return "", errNoOwner
	}
	return "/admin/v1/owners/" + url.PathEscape(owner) + "/endpoints", nil
}

// endpointPath is /admin/v1/owners/{owner}/endpoints/{name}, escaped.
func endpointPath(owner, name string) (string, error) {
	p, err := endpointsPath(owner)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", errNoEndpointName
	}
	return p + "/" + url.PathEscape(name), nil
}

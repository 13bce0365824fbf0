package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// EndpointWriter is an admin's changes to any owner's endpoints (*admin.Endpoints). by
// is the id of the admin token making the change.
type EndpointWriter interface {
	Create(ctx context.Context, e domain.Endpoint, by string) (domain.Endpoint, error)
	Update(ctx context.Context, owner, name string, p domain.EndpointPatch, by string) (domain.Endpoint, error)
	Delete(ctx context.Context, owner, name, by string) error
}

// endpointRequest is the body of POST /admin/v1/owners/{owner}/endpoints: the endpoint
// in full, secrets included. Zero is each optional field's default (the node's timeout,
// no cap, unpaced, no failure URL, a secret the server makes);
// domain.ValidateEndpointWrite checks the rest.
type endpointRequest struct {
	Name           string   `json:"name"`
	URL            string   `json:"url"`
	Secrets        []string `json:"secrets"`
	TimeoutSeconds float64  `json:"timeout_seconds"`
	MaxInFlight    int      `json:"max_in_flight"`
	RatePerSecond  float64  `json:"rate_per_second"`
	FailureURL     string   `json:"failure_url"`
}

// endpointPatchRequest is the body of PATCH /admin/v1/owners/{owner}/endpoints/{name}:
// every member optional, an absent or null one left as it is. Secrets given replace the
// whole list.
type endpointPatchRequest struct {
	URL            *string  `json:"url"`
	Secrets        []string `json:"secrets"`
	TimeoutSeconds *float64 `json:"timeout_seconds"`
	MaxInFlight    *int     `json:"max_in_flight"`
	RatePerSecond  *float64 `json:"rate_per_second"`
	FailureURL     *string  `json:"failure_url"`
	// The name is the endpoint's for life: named so the refusal can say so.
	Name json.RawMessage `json:"name"`
}

func (req endpointPatchRequest) patch() (domain.EndpointPatch, error) {
	if req.Name != nil && !bytes.Equal(bytes.TrimSpace(req.Name), jsonio.Null) {
		return domain.EndpointPatch{}, invalidArgument("name", "cannot be changed; create an endpoint of the new name, move the alarms, then delete this one")
	}
	p := domain.EndpointPatch{URL: req.URL, Secrets: req.Secrets, MaxInFlight: req.MaxInFlight,
		RatePerSecond: req.RatePerSecond, FailureURL: req.FailureURL}
	if req.TimeoutSeconds != nil {
		d := secondsToDuration(*req.TimeoutSeconds)
		p.Timeout = &d
	}
	return p, nil
}

// adminListAllEndpoints serves GET /admin/v1/endpoints: every owner's, by owner then name.
func (a *api) adminListAllEndpoints(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	a.writeEndpoints(w, r, "")
}

// adminListEndpoints serves GET /admin/v1/owners/{owner}/endpoints, by name.
func (a *api) adminListEndpoints(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	owner, err := ownerParam(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeEndpoints(w, r, owner)
}

func (a *api) writeEndpoints(w http.ResponseWriter, r *http.Request, owner string) {
	es, err := a.endpoints.List(r.Context(), owner)
	if err != nil {
		a.writeError(w, r, endpointError(err))
		return
	}
	views := make([]adminEndpointView, len(es))
	for i, e := range es {
		if views[i], err = a.newAdminEndpointView(r.Context(), e); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Endpoints []adminEndpointView `json:"endpoints"`
	}{views})
}

// adminCreateEndpoint serves POST /admin/v1/owners/{owner}/endpoints.
func (a *api) adminCreateEndpoint(w http.ResponseWriter, r *http.Request, tok domain.Token) {
	owner, err := ownerParam(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req endpointRequest
	if !a.readObject(w, r, &req) {
		return
	}
	e, err := a.endpointChanges.Create(r.Context(), domain.Endpoint{Owner: owner, Name: req.Name, URL: req.URL, Secrets: req.Secrets,
		Timeout: secondsToDuration(req.TimeoutSeconds), MaxInFlight: req.MaxInFlight, RatePerSecond: req.RatePerSecond,
		FailureURL: req.FailureURL}, tok.ID)
	if err != nil {
		a.writeError(w, r, endpointError(err))
		return
	}
	w.Header().Set("Location", "/admin/v1/owners/"+url.PathEscape(e.Owner)+"/endpoints/"+url.PathEscape(e.Name))
	made := ""
	if len(req.Secrets) == 0 {
		made = e.Secrets[0] // the server made it (app.Endpoints.Create): shown this once
	}
	a.writeEndpoint(w, r, http.StatusCreated, e, made)
}

// endpointHandler reads or changes the endpoint {owner}/{name} (endpointKey).
type endpointHandler func(w http.ResponseWriter, r *http.Request, owner, name string, tok domain.Token) (domain.Endpoint, error)

// oneEndpoint serves a route of one endpoint: 200 with the endpoint do returns, in the
// admin's view.
func (a *api) oneEndpoint(do endpointHandler) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, tok domain.Token) {
		owner, name, err := endpointKey(r)
		var e domain.Endpoint
		if err == nil {
			e, err = do(w, r, owner, name, tok)
		}
		if err != nil {
			a.writeError(w, r, endpointError(err))
			return
		}
		a.writeEndpoint(w, r, http.StatusOK, e, "")
	}
}

// adminGetEndpoint serves GET /admin/v1/owners/{owner}/endpoints/{name}.
func (a *api) adminGetEndpoint(_ http.ResponseWriter, r *http.Request, owner, name string, _ domain.Token) (domain.Endpoint, error) {
	return a.endpoints.Get(r.Context(), owner, name)
}

// adminUpdateEndpoint serves PATCH /admin/v1/owners/{owner}/endpoints/{name}.
func (a *api) adminUpdateEndpoint(w http.ResponseWriter, r *http.Request, owner, name string, tok domain.Token) (domain.Endpoint, error) {
	var req endpointPatchRequest
	if err := a.decodeBody(w, r, &req); err != nil {
		return domain.Endpoint{}, err
	}
	p, err := req.patch()
	if err != nil {
		return domain.Endpoint{}, err
	}
	return a.endpointChanges.Update(r.Context(), owner, name, p, tok.ID)
}

// adminDeleteEndpoint serves DELETE /admin/v1/owners/{owner}/endpoints/{name}: 204.
func (a *api) adminDeleteEndpoint(w http.ResponseWriter, r *http.Request, tok domain.Token) {
	owner, name, err := endpointKey(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := a.endpointChanges.Delete(r.Context(), owner, name, tok.ID); err != nil {
		a.writeError(w, r, endpointError(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// endpointKey is the {owner} and {name} of a route of one endpoint; a name that cannot
// be one is answered like an unknown one.
func endpointKey(r *http.Request) (owner, name string, err error) {
	if owner, err = ownerParam(r); err != nil {
		return "", "", err
	}
	name, ok := endpointName(r)
	if !ok {
		return "", "", errNoEndpoint
	}
	return owner, name, nil
}

// writeEndpoint answers {"endpoint": ...} in the admin's view, and the secret the server
// made when a create gave none ("" leaves it out): the one answer that ever carries a
// secret, since the admin has no other way to learn it.
func (a *api) writeEndpoint(w http.ResponseWriter, r *http.Request, status int, e domain.Endpoint, made string) {
	v, err := a.newAdminEndpointView(r.Context(), e)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, status, struct {
		Endpoint adminEndpointView `json:"endpoint"`
		Secret   string            `json:"secret,omitempty"`
	}{v, made})
}

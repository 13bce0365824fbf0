package webui

import (
	"net/http"
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// endpointRow is an endpoint as the page shows it: its Secrets cleared (the page says
// how many), its URLs redacted as the API's views redact them, its load summed over the
// live nodes (zero when none reports it).
type endpointRow struct {
	domain.Endpoint
	SecretCount int
	Load        domain.EndpointLoad
}

type endpointsData struct {
	Owner     string // the filter
	Endpoints []endpointRow
}

// endpointsPage lists the owners' endpoints, one owner's with ?owner=: their limits
// and how busy they are on the live nodes; never a secret.
func (u *UI) endpointsPage(w http.ResponseWriter, r *http.Request, v viewer) {
	owner := strings.TrimSpace(r.URL.Query().Get("owner"))
	es, err := u.endpoints.List(r.Context(), owner)
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	// The nodes report their busiest endpoints with each heartbeat; the overview sums
	// them. An endpoint none reports is idle, or not busy enough to be among them.
	loads := map[[2]string]domain.EndpointLoad{}
	if o, err := u.cluster.Overview(r.Context()); err == nil {
		for _, l := range o.QueuingEndpoints {
			loads[[2]string{l.Owner, l.Name}] = l
		}
	}
	d := endpointsData{Owner: owner, Endpoints: make([]endpointRow, len(es))}
	for i, e := range es {
		n := len(e.Secrets)
		e.Secrets = nil // no template can show one
		e.URL, e.FailureURL = domain.RedactedURL(e.URL), domain.RedactedURL(e.FailureURL)
		d.Endpoints[i] = endpointRow{Endpoint: e, SecretCount: n, Load: loads[[2]string{e.Owner, e.Name}]}
	}
	u.render(w, r, http.StatusOK, "endpoints", page{Title: "Endpoints", Nav: "endpoints", Viewer: &v, Data: d})
}

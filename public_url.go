package chronos

import (
	"fmt"
	"net/http"
	"net/url"
)

// hstsValue is the Strict-Transport-Security of a node served over HTTPS: a year, this
// host only (its subdomains are not the node's to decide).
const hstsValue = "max-age=31536000"

// parsePublicURL checks Config.PublicURL and reports whether clients reach the node
// over HTTPS. "" is allowed: then only a request that came over TLS counts as one.
func parsePublicURL(raw string) (https bool, err error) {
	if raw == "" {
		return false, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false, fmt.Errorf("chronos: PublicURL %q must be an absolute http:// or https:// URL", raw)
	}
	return u.Scheme == "https", nil
}

// withHSTS tells browsers to reach this host over HTTPS only, on every response of a
// node they reach over HTTPS: this one's own TLS (r.TLS) or a proxy's in front of it
// (https is Config.PublicURL's scheme). Over plain HTTP the header would be ignored, and
// a proxy's plain hop to the node must not decide for it.
func withHSTS(https bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if https || r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", hstsValue)
		}
		next.ServeHTTP(w, r)
	})
}

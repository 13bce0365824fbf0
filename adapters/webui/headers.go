package webui

import "net/http"

// contentSecurityPolicy allows only what the dashboard itself serves: its own script
// and stylesheet, no inline script or style, no frames, forms only to itself. Charts
// are inline SVG drawn with presentation attributes, which the policy allows.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// withSecurityHeaders sets the headers every dashboard response carries.
func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: under no-referrer a browser sends "Origin: null"
		// on every form post, even to its own site, and sameOrigin must refuse that. Links
		// to other sites still carry no referrer, so alarm ids in addresses stay here.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

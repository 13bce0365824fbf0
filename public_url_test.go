package chronos_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
)

// Strict-Transport-Security is on every response when clients reach the node over
// HTTPS: a PublicURL of https://, also when a proxy terminates TLS and the node sees
// plain HTTP; never for a node reached over plain HTTP.
func TestPublicURLHTTPSAddsHSTS(t *testing.T) {
	for _, tc := range []struct {
		publicURL string
		want      string
	}{
		{"", ""},
		{"http://chronos.internal:8080", ""},
		{"https://chronos.example", "max-age=31536000"},
	} {
		n, err := chronos.New(memory.New(nil), chronos.Config{Handler: chronos.HandlerFunc(func(context.Context, domain.Wake) error { return nil }), PublicURL: tc.publicURL, Dashboard: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/healthz", "/ui/login", "/v1/alarms"} {
			w := httptest.NewRecorder()
			n.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			if got := w.Header().Get("Strict-Transport-Security"); got != tc.want {
				t.Errorf("PublicURL %q, %s: Strict-Transport-Security %q, want %q", tc.publicURL, path, got, tc.want)
			}
		}
	}
}

package api_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
)

// Text a list filter takes from the query (label_prefix, an admin's owner) that no
// stored value can hold (NUL, invalid UTF-8) is a 400 naming the parameter before the
// store sees it, alike on every store, and the dashboard's filter says what is wrong:
// PostgreSQL refuses such bytes in text, so there the request failed with a 500 and an
// error in the log.
func TestMalformedFilterTextNeverReachesTheStore(t *testing.T) {
	t.Parallel()
	bad := []string{"%FF", "a%C3", "a%00"}
	for kind, open := range textStores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h, token, logs := nodeOver(t, open(t))
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			for _, v := range bad {
				for path, field := range map[string]string{
					"/v1/alarms?label_prefix=" + v:       "label_prefix",
					"/admin/v1/alarms?label_prefix=" + v: "label_prefix",
					"/admin/v1/alarms?owner=" + v:        "owner",
				} {
					expectError(t, send(t, srv.URL, http.MethodGet, path, "", token), http.StatusBadRequest, "invalid_argument", field)
				}
			}
			jar, err := cookiejar.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			browser := &http.Client{Jar: jar}
			login, err := browser.PostForm(srv.URL+"/ui/login", url.Values{"token": {token}})
			if err != nil {
				t.Fatal(err)
			}
			login.Body.Close()
			for _, v := range bad {
				for _, q := range []string{"owner=" + v, "label=" + v} {
					res, err := browser.Get(srv.URL + "/ui/alarms?" + q)
					if err != nil {
						t.Fatal(err)
					}
					var page strings.Builder
					_, _ = io.Copy(&page, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusBadRequest || !strings.Contains(page.String(), "not UTF-8") && !strings.Contains(page.String(), "NUL") {
						t.Errorf("GET /ui/alarms?%s = %d, want 400 and the page saying what is wrong with the filter", q, res.StatusCode)
					}
				}
			}
			for _, e := range logs.FilterLevelExact(zapcore.ErrorLevel).All() {
				t.Errorf("logged as an error: %s %v", e.Message, e.ContextMap())
			}
		})
	}
}

package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// With ReceiverErrorsStatus (the default) a failed delivery's error, which becomes the
// owner's last_error, says what happened in the standard's words only: the status code
// and its standard text, a generic reason for a failure before any answer. Nothing the
// receiver wrote (body, reason phrase, Location) and no address, host or certificate
// name reaches it.
func TestStatusOnlyReceiverErrors(t *testing.T) {
	const leak = "db-primary.internal 10.1.2.3"
	// An address nothing listens on: a listener opened and closed at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/wake"
	_ = l.Close()

	for _, c := range []struct {
		name string
		srv  func() *httptest.Server // nil: the refused address
		want string                  // the whole error text
	}{
		{"a refusal with a body", func() *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "cannot reach "+leak, http.StatusBadGateway)
			}))
		}, "webhook: HTTP 502 Bad Gateway"},
		{"a reason phrase of its own", func() *httptest.Server {
			return httptest.NewServer(resetAfter("HTTP/1.1 500 " + leak + "\r\nContent-Length: 0\r\n\r\n"))
		}, "webhook: HTTP 500 Internal Server Error"},
		{"a redirect", func() *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://"+strings.Fields(leak)[0]+"/wake", http.StatusFound)
			}))
		}, "webhook: HTTP 302 Found (redirects are not followed)"},
		{"an untrusted certificate", func() *httptest.Server {
			return httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		}, "webhook: the receiver's TLS certificate is not trusted"},
		{"a reset before answering", func() *httptest.Server { return httptest.NewServer(resetAfter("")) }, "webhook: the receiver reset the connection"},
		{"nobody listening", nil, "webhook: connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := refused
			if c.srv != nil {
				srv := c.srv()
				srv.Config.ErrorLog = quietLog()
				defer srv.Close()
				url = srv.URL
			}
			w, err := New(Options{URL: url, Secret: secret, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			err = w.Wake(context.Background(), sampleWake())
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "10.1.2.3") {
				t.Errorf("the error names an address: %v", err)
			}
		})
	}
}

// The receiver's word on a retry still counts when its text is not quoted.
func TestStatusOnlyKeepsTheVerdict(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	w, err := New(Options{URL: srv.URL, Secret: secret, ReceiverErrors: ReceiverErrorsStatus})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var se *StatusError
	if err := w.Wake(context.Background(), sampleWake()); !errors.As(err, &se) || se.RetryAfter() != 7*time.Second || se.Body != "" {
		t.Errorf("error %v, want a 503 asking for 7s, no body quoted", err)
	}
	if _, err := New(Options{URL: srv.URL, Secret: secret, ReceiverErrors: "some"}); err == nil {
		t.Error("an unknown ReceiverErrors was taken")
	}
}

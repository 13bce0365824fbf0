package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// WakeResponse reports every answer for the attempt log: its status, Content-Type and
// the first AttemptBodyBytes of its body, a 2xx's and a refusal's alike, whatever
// --receiver-errors quotes in the error; a body past the limit is marked truncated.
func TestWakeResponseReportsTheAnswer(t *testing.T) {
	tests := []struct {
		name      string
		code      int
		body      string
		limit     int
		errors    ReceiverErrors
		wantBody  string
		truncated bool
		wantErr   bool
	}{
		{name: "2xx with a body", code: 200, body: `{"ok":true}`, limit: 1024, wantBody: `{"ok":true}`},
		{name: "2xx cut at the limit", code: 202, body: "0123456789", limit: 4, wantBody: "0123", truncated: true},
		{name: "204 reads nothing", code: 204, limit: 1024},
		{name: "a refusal, full errors", code: 503, body: "overloaded", limit: 1024, errors: ReceiverErrorsFull, wantBody: "overloaded", wantErr: true},
		{name: "a refusal, status errors", code: 503, body: "overloaded", limit: 1024, errors: ReceiverErrorsStatus, wantBody: "overloaded", wantErr: true},
		{name: "a refusal cut below the error's quote", code: 500, body: strings.Repeat("x", 600), limit: 8, errors: ReceiverErrorsFull,
			wantBody: "xxxxxxxx", truncated: true, wantErr: true},
		{name: "limit 0 keeps no body", code: 500, body: "secret details", limit: 0, errors: ReceiverErrorsFull, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Type", "text/plain")
				rw.WriteHeader(tc.code)
				_, _ = rw.Write([]byte(tc.body))
			}))
			defer srv.Close()
			wk := newWaker(t, Options{URL: srv.URL, AttemptBodyBytes: tc.limit, ReceiverErrors: tc.errors})
			resp, err := wk.WakeResponse(context.Background(), sampleWake())
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tc.wantErr)
			}
			if resp.Status != tc.code || resp.ContentType != "text/plain" {
				t.Errorf("status %d, content type %q; want %d, text/plain", resp.Status, resp.ContentType, tc.code)
			}
			if string(resp.Body) != tc.wantBody || resp.Truncated != tc.truncated {
				t.Errorf("body %q (truncated %v), want %q (truncated %v)", resp.Body, resp.Truncated, tc.wantBody, tc.truncated)
			}
			var se *StatusError
			if tc.code == 500 && tc.errors == ReceiverErrorsFull && tc.body != "" && errors.As(err, &se) && se.Body == "" {
				t.Errorf("the full error lost its quote of the body: %v", err)
			}
		})
	}
}

// A failure before any answer reports no response, only the error.
func TestWakeResponseWithoutAnAnswer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	resp, err := newWaker(t, Options{URL: url, AttemptBodyBytes: 1024}).WakeResponse(context.Background(), sampleWake())
	if err == nil || resp.Status != 0 || resp.Body != nil {
		t.Errorf("WakeResponse to a closed port = %+v, %v; want no response and an error", resp, err)
	}
}

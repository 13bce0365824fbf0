package webhook

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// drip answers status, then one byte of body every interval until the client hangs up.
func drip(status int, interval time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(status)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(interval):
			}
		}
	}
}

// flood answers status and up to size bytes of fill, counting what it managed to write.
func flood(status int, size int, fill byte, written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(status)
		chunk := []byte(strings.Repeat(string(fill), 32<<10))
		for sent := 0; sent < size; sent += len(chunk) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

// resetAfter writes raw (the start of an answer) on the bare connection and then resets
// it: SO_LINGER 0 makes Close send an RST instead of a FIN.
func resetAfter(raw string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
		time.Sleep(50 * time.Millisecond) // the client reads what came before the reset
		_ = conn.(*net.TCPConn).SetLinger(0)
		_ = conn.Close()
	}
}

// The status line is the answer: a 2xx acknowledges the wake even when its body drips,
// would run to 50 MB or is cut by a reset, and the waker neither waits for the rest beyond maxBodyWait nor
// reads more than maxDrain of it.
func TestWakeTakesTheStatusAsTheAnswer(t *testing.T) {
	var written atomic.Int64
	for name, h := range map[string]http.HandlerFunc{
		"dripping body":  drip(http.StatusOK, 100*time.Millisecond),
		"50 MB body":     flood(http.StatusOK, 50<<20, 'x', &written),
		"reset mid-body": resetAfter("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf"),
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			start := time.Now()
			err := newWaker(t, Options{URL: srv.URL, Timeout: 5 * time.Second}).Wake(context.Background(), sampleWake())
			if err != nil {
				t.Fatalf("a 2xx answer was not taken as the acknowledgement: %v", err)
			}
			if took := time.Since(start); took > maxBodyWait+time.Second {
				t.Errorf("Wake took %s; it should give the body at most %s", took, maxBodyWait)
			}
		})
	}
	srvWrote := written.Load()
	t.Logf("the 50 MB receiver got %d KiB onto the wire before its connection was dropped", srvWrote>>10)
	if srvWrote >= 50<<20 {
		t.Errorf("the whole 50 MB body was read")
	}
}

// A refusal is quoted (its first 512 bytes, as text) and, when its body stopped short,
// the error says why.
func TestWakeQuotesARefusalAndSaysWhyItsBodyWasCut(t *testing.T) {
	var written atomic.Int64
	tests := []struct {
		name    string
		h       http.HandlerFunc
		timeout time.Duration
		want    string // the error text, exactly
	}{
		{"dripping body", drip(http.StatusInternalServerError, 300*time.Millisecond), 5 * time.Second,
			"webhook: HTTP 500 Internal Server Error: xxxx (body cut short: still arriving 1s after the status)"},
		{"dripping past the timeout", drip(http.StatusBadGateway, 300*time.Millisecond), 500 * time.Millisecond,
			"webhook: HTTP 502 Bad Gateway: xx (body cut short: timeout after 500ms)"},
		{"50 MB of text", flood(http.StatusServiceUnavailable, 50<<20, 'y', &written), 5 * time.Second,
			"webhook: HTTP 503 Service Unavailable: " + strings.Repeat("y", 512)},
		{"50 MB of zeros", flood(http.StatusInternalServerError, 50<<20, 0, &written), 5 * time.Second,
			"webhook: HTTP 500 Internal Server Error: (binary, not quoted)"},
		{"reset mid-body", resetAfter("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100\r\n\r\nhalf an answ"), 5 * time.Second,
			"webhook: HTTP 500 Internal Server Error: half an answ (body cut short: the receiver reset the connection: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			err := newWaker(t, Options{URL: srv.URL, Timeout: tt.timeout}).Wake(context.Background(), sampleWake())
			var se *StatusError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a StatusError", err)
			}
			got := err.Error()
			if strings.HasSuffix(tt.want, ": ") {
				// the reset's own text names the addresses: only its start is fixed
				if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, "connection reset by peer)") {
					t.Fatalf("error:\n got %s\nwant %s...connection reset by peer)", got, tt.want)
				}
				return
			}
			// A dripping body's byte count depends on scheduling: compare its shape.
			if strings.Contains(tt.name, "dripping") {
				got = collapseX(got)
				tt.want = collapseX(tt.want)
			}
			if got != tt.want {
				t.Fatalf("error:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	if w := written.Load(); w >= 100<<20 {
		t.Errorf("the 50 MB bodies were read to their end (%d MiB written)", w>>20)
	}
}

// collapseX turns a run of x into one, so dripped bodies of 3 or 4 bytes compare equal.
func collapseX(s string) string {
	for strings.Contains(s, "xx") {
		s = strings.ReplaceAll(s, "xx", "x")
	}
	return s
}

// What the connection did is said in words: an owner reading last_error should not have
// to know what "EOF" or "x509" mean to know whose fault it was.
func TestWakeSaysWhatTheConnectionDid(t *testing.T) {
	tests := []struct {
		name string
		srv  func() *httptest.Server
		want []string // all in the error text
	}{
		{"closed without answering", func() *httptest.Server {
			return httptest.NewServer(closeWithoutAnswer())
		}, []string{"webhook: the connection ended before the receiver's answer was complete (EOF)"}},
		{"reset before answering", func() *httptest.Server {
			return httptest.NewServer(resetAfter(""))
		}, []string{"webhook: the receiver reset the connection: ", "connection reset by peer"}},
		{"reset mid-headers", func() *httptest.Server {
			return httptest.NewServer(resetAfter("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"))
		}, []string{"webhook: the connection ended before the receiver's answer was complete (", "unexpected EOF)"}},
		{"self-signed certificate", func() *httptest.Server {
			return httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		}, []string{"webhook: the receiver's TLS certificate is not trusted: x509: certificate signed by unknown authority"}},
		{"headers over 64 KiB", func() *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Huge", strings.Repeat("h", 100<<10))
			}))
		}, []string{"webhook: ", "server response headers exceeded 65536 bytes; aborted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.srv()
			srv.Config.ErrorLog = quietLog() // the TLS server would print the handshake it refused
			defer srv.Close()
			err := newWaker(t, Options{URL: srv.URL, Timeout: 5 * time.Second}).Wake(context.Background(), sampleWake())
			if err == nil {
				t.Fatal("the wake succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// closeWithoutAnswer reads the request and closes the connection without a word.
func closeWithoutAnswer() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		_ = conn.Close()
	}
}

func TestQuoteMakesReceiverTextFitForLastError(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	for _, tt := range []struct{ in, want string }{
		{"  plain refusal\n", "plain refusal"},
		{"line one\nline\ttwo", "line one\nline\ttwo"},
		{"bell\a and escape\x1b[31m", "bell\uFFFD and escape\uFFFD[31m"},
		{"bad \xff utf-8", "bad \uFFFD utf-8"},
		{"nul\x00inside", "(binary, not quoted)"},
		{long, strings.Repeat("é", 256) + "…"},
		{"a" + long, "a" + strings.Repeat("é", 255) + "…"}, // never cuts a rune in two
	} {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A redirect's Location is quoted like a body: bounded, printable.
func TestRedirectLocationIsQuoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/"+strings.Repeat("p", 4000))
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	err := newWaker(t, Options{URL: srv.URL}).Wake(context.Background(), sampleWake())
	want := "webhook: HTTP 307 Temporary Redirect (redirects are not followed; Location: /" + strings.Repeat("p", 511) + "…)"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n got %v\nwant %s", err, want)
	}
}

// quietLog is a server's error log that drops what it is told.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// A refusal whose body the caller's deadline cut (the dispatcher's delivery timeout, a
// shutdown) still reports the status, with the caller's reason.
func TestWakeSaysTheCallersReasonForACutBody(t *testing.T) {
	srv := httptest.NewServer(drip(http.StatusServiceUnavailable, 100*time.Millisecond))
	defer srv.Close()
	ctx, cancel := context.WithTimeoutCause(context.Background(), 500*time.Millisecond, errors.New("delivery timeout"))
	defer cancel()
	err := newWaker(t, Options{URL: srv.URL, Timeout: 5 * time.Second}).Wake(ctx, sampleWake())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusServiceUnavailable || !strings.HasSuffix(err.Error(), "(body cut short: delivery timeout)") {
		t.Fatalf("error = %v, want the 503 with its body cut short by the delivery timeout", err)
	}
}

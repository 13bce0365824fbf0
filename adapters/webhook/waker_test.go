package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const secret = "test-secret"

// newWaker returns a Waker for url with test defaults, closed when the test ends. Its
// errors quote the receiver in full, which is what most tests here read; the default,
// ReceiverErrorsStatus, has tests of its own (receiver_errors_test.go).
func newWaker(t *testing.T, o Options) *Waker {
	t.Helper()
	if o.Secret == "" && !o.AllowUnsigned {
		o.Secret = secret
	}
	if o.ReceiverErrors == "" {
		o.ReceiverErrors = ReceiverErrorsFull
	}
	w, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// hang answers nothing until the client gives up. The body is read first because the
// server notices a closed connection (and cancels r.Context) only after that.
func hang(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// hangingWaker is a Waker with timeout whose receiver never answers.
func hangingWaker(t *testing.T, timeout time.Duration) *Waker {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { hang(r) }))
	t.Cleanup(srv.Close)
	return newWaker(t, Options{URL: srv.URL, Timeout: timeout})
}

// received is one request as the receiver saw it.
type received struct {
	method string
	header http.Header
	body   []byte
}

func TestWakeSendsSignedJSON(t *testing.T) {
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Method, r.Header.Clone(), body}
		rw.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	wk := newWaker(t, Options{URL: srv.URL + "/hooks/chronos?x=1", UserAgent: "chronos/1.2.3"})

	wake := sampleWake()
	before := time.Now()
	if err := wk.Wake(context.Background(), wake); err != nil {
		t.Fatal(err)
	}
	r := <-got

	if r.method != http.MethodPost {
		t.Errorf("method = %s, want POST", r.method)
	}
	for name, want := range map[string]string{
		"Content-Type":    "application/json",
		"User-Agent":      "chronos/1.2.3",
		"Idempotency-Key": wake.OccurrenceKey,
	} {
		if v := r.header.Get(name); v != want {
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
	if string(r.body) != string(Body(wake)) {
		t.Fatalf("body:\n got %s\nwant %s", r.body, Body(wake))
	}
	if !strings.Contains(string(r.body), `"payload":{"b": 1,  "a":[1, 2]},`) {
		t.Fatalf("payload not byte-for-byte in %s", r.body)
	}

	sig := r.header.Get(SignatureHeader)
	if err := Verify([]byte(secret), sig, r.body, time.Now(), time.Minute); err != nil {
		t.Fatalf("Verify(%q): %v", sig, err)
	}
	// Recompute from the wire format alone, as a receiver in another language would.
	ts, v1, ok := strings.Cut(strings.TrimPrefix(sig, "t="), ",v1=")
	if !ok {
		t.Fatalf("signature %q is not t=...,v1=...", sig)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(r.body)))
	if want := hex.EncodeToString(m.Sum(nil)); v1 != want {
		t.Fatalf("v1 = %s, independent HMAC = %s", v1, want)
	}
	unix, _ := strconv.ParseInt(ts, 10, 64)
	if unix < before.Unix() || unix > time.Now().Unix() {
		t.Fatalf("t=%d is not the time of sending", unix)
	}
}

func TestWakeUnsignedWhenAllowed(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
	}))
	defer srv.Close()
	wk := newWaker(t, Options{URL: srv.URL, AllowUnsigned: true})
	if err := wk.Wake(context.Background(), sampleWake()); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if _, ok := h[SignatureHeader]; ok {
		t.Fatalf("unsigned waker sent %s: %q", SignatureHeader, h.Get(SignatureHeader))
	}
	if ua := h.Get("User-Agent"); ua != DefaultUserAgent {
		t.Fatalf("User-Agent = %q, want the default %q", ua, DefaultUserAgent)
	}
}

func TestWakeSucceedsOnAny2xx(t *testing.T) {
	for _, code := range []int{200, 201, 202, 204} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				rw.WriteHeader(code)
			}))
			defer srv.Close()
			if err := newWaker(t, Options{URL: srv.URL}).Wake(context.Background(), sampleWake()); err != nil {
				t.Fatalf("HTTP %d: %v", code, err)
			}
		})
	}
}

func TestWakeFailsOnOtherStatuses(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 128) // 2 KiB
	tests := []struct {
		code int
		body string
		want string // the error text, exactly
	}{
		{500, "boom\n", "webhook: HTTP 500 Internal Server Error: boom"},
		{503, long, "webhook: HTTP 503 Service Unavailable: " + long[:512]},
		{404, "", "webhook: HTTP 404 Not Found"},
		{301, "moved", "webhook: HTTP 301 Moved Permanently (redirects are not followed; Location: /elsewhere): moved"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			var redirected atomic.Bool
			mux := http.NewServeMux()
			mux.HandleFunc("/elsewhere", func(http.ResponseWriter, *http.Request) { redirected.Store(true) })
			mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
				if tt.code/100 == 3 {
					rw.Header().Set("Location", "/elsewhere")
				}
				rw.WriteHeader(tt.code)
				io.WriteString(rw, tt.body)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			err := newWaker(t, Options{URL: srv.URL}).Wake(context.Background(), sampleWake())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.want)
			}
			var se *StatusError
			if !errors.As(err, &se) || se.Code != tt.code {
				t.Fatalf("error %v is not a StatusError with code %d", err, tt.code)
			}
			if tt.body == long && len(se.Body) != 512 {
				t.Fatalf("kept %d bytes of a 2 KiB body, want 512", len(se.Body))
			}
			if redirected.Load() {
				t.Fatal("the redirect was followed")
			}
		})
	}
}

func TestWakeTimesOut(t *testing.T) {
	wk := hangingWaker(t, 100*time.Millisecond)

	start := time.Now()
	err := wk.Wake(context.Background(), sampleWake())
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("Wake took %s with a 100ms timeout", elapsed)
	}
	if !errors.Is(err, ErrTimeout) || err.Error() != "webhook: timeout after 100ms" {
		t.Fatalf("error = %v, want webhook: timeout after 100ms", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("the waker's own timeout must not look like the caller's deadline")
	}
}

func TestWakeHonoursTheCallersContext(t *testing.T) {
	wk := hangingWaker(t, 10*time.Second)

	t.Run("cancelled in flight", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		err := wk.Wake(ctx, sampleWake())
		if err != context.Canceled {
			t.Fatalf("error = %v, want context.Canceled untouched", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Fatalf("Wake took %s after cancellation", elapsed)
		}
	})
	t.Run("deadline shorter than the timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := wk.Wake(ctx, sampleWake()); err != context.DeadlineExceeded {
			t.Fatalf("error = %v, want context.DeadlineExceeded untouched", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := wk.Wake(ctx, sampleWake()); err != context.Canceled {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
	})
}

func TestWakeReportsConnectionErrors(t *testing.T) {
	// A port that was just listening and is now closed refuses connections.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	err = newWaker(t, Options{URL: "http://" + addr + "/wake?token=hidden"}).Wake(context.Background(), sampleWake())
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error = %v, want it to say the connection was refused", err)
	}
	if strings.Contains(err.Error(), "hidden") {
		t.Fatalf("error %q quotes the wake URL", err)
	}
}

func TestWakeReusesOneConnection(t *testing.T) {
	var conns atomic.Int32
	var calls atomic.Int32
	long := strings.Repeat("x", 2048)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// Every other answer is a failure with a body, which must be drained too.
		if calls.Add(1)%2 == 0 {
			rw.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(rw, long)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	wk := newWaker(t, Options{URL: srv.URL})

	for i := range 50 {
		err := wk.Wake(context.Background(), sampleWake())
		if (i%2 == 0) != (err == nil) {
			t.Fatalf("wake %d: unexpected result %v", i, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("50 sequential wakes opened %d connections, want 1", n)
	}
}

func TestNewSizesTheIdlePoolToMaxConns(t *testing.T) {
	for _, tt := range []struct{ maxConns, want int }{{0, DefaultMaxConns}, {200, 200}} {
		wk := newWaker(t, Options{URL: "http://127.0.0.1:1", MaxConns: tt.maxConns})
		tr := wk.client.Transport.(*http.Transport)
		if tr.MaxIdleConnsPerHost != tt.want || tr.MaxIdleConns < tt.want {
			t.Fatalf("MaxConns %d: idle pool %d per host, %d total; want %d",
				tt.maxConns, tr.MaxIdleConnsPerHost, tr.MaxIdleConns, tt.want)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    Options
	}{
		{"empty URL", Options{Secret: secret}},
		{"relative URL", Options{URL: "/wake", Secret: secret}},
		{"no host", Options{URL: "http://", Secret: secret}},
		{"other scheme", Options{URL: "ftp://example.com/wake", Secret: secret}},
		{"unparsable URL", Options{URL: "http://[::1", Secret: secret}},
		{"no secret", Options{URL: "https://example.com/wake"}},
		{"negative timeout", Options{URL: "https://example.com/wake", Secret: secret, Timeout: -time.Second}},
		{"negative max conns", Options{URL: "https://example.com/wake", Secret: secret, MaxConns: -1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.o); err == nil || !strings.HasPrefix(err.Error(), "webhook: ") {
				t.Fatalf("New(%+v) = %v, want a webhook: error", tt.o, err)
			}
		})
	}
}

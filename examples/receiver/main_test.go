package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
)

const testSecret = "s3cret-for-tests"

// testWake is a wake as the dispatcher builds it; webhook.Body gives the bytes chronos
// sends for it.
func testWake(key string) domain.Wake {
	at := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	return domain.Wake{
		AlarmID: "alm_1", Owner: "alice", Label: "tea", Kind: domain.KindOnce,
		ScheduledFor: at, FiredAt: at.Add(300 * time.Millisecond), Attempt: 1,
		OccurrenceKey: key, WakeMessage: "brew", Payload: []byte(`{"cups": 2}`),
		Delivery: domain.AtLeastOnce,
	}
}

// post sends body with the given signature and key, as webhook.Waker would, and
// returns the status and answer.
func post(t *testing.T, url, sig, key string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	if sig != "" {
		req.Header.Set(webhook.SignatureHeader, sig)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(answer)
}

// syncBuffer is what the handler prints to; the server writes from its own goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestReceiverHandler(t *testing.T) {
	now := time.Date(2030, 1, 2, 9, 0, 1, 0, time.UTC)
	var out syncBuffer
	rc := NewReceiver([]byte(testSecret), &out)
	rc.now = func() time.Time { return now }
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)

	const key = "alm_1/2030-01-02T09:00:00Z"
	body := webhook.Body(testWake(key))
	good := webhook.Sign([]byte(testSecret), now, body)
	other := webhook.Body(testWake("alm_1/2030-01-03T09:00:00Z"))
	for _, tc := range []struct {
		name   string
		sig    string
		key    string
		body   []byte
		status int
		answer string
	}{
		{"new wake", good, key, body, 200, "ok"},
		{"same occurrence again", webhook.Sign([]byte(testSecret), now, body), key, body, 200, "duplicate"},
		{"forged: another secret", webhook.Sign([]byte("guess"), now, other), "alm_1/2030-01-03T09:00:00Z", other, 401, "signature does not match"},
		{"altered body", good, key, bytes.Replace(body, []byte(`"cups": 2`), []byte(`"cups": 9`), 1), 401, "signature does not match"},
		{"stale: signed ten minutes ago", webhook.Sign([]byte(testSecret), now.Add(-10*time.Minute), other), "alm_1/2030-01-03T09:00:00Z", other, 401, "outside the tolerance"},
		{"from the future", webhook.Sign([]byte(testSecret), now.Add(10*time.Minute), other), "alm_1/2030-01-03T09:00:00Z", other, 401, "outside the tolerance"},
		{"unsigned", "", key, body, 401, "missing"},
		{"key not the signed occurrence", webhook.Sign([]byte(testSecret), now, other), "alm_1/someone-else", other, 400, "occurrence_key"},
		{"signed but not a wake", webhook.Sign([]byte(testSecret), now, []byte("[1]")), key, []byte("[1]"), 400, "not a wake"},
	} {
		status, answer := post(t, srv.URL, tc.sig, tc.key, tc.body)
		if status != tc.status || !strings.Contains(answer, tc.answer) {
			t.Errorf("%s: %d %q; want %d with %q", tc.name, status, answer, tc.status, tc.answer)
		}
	}
	if res, err := http.Get(srv.URL); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v; want 405", res, err)
	}

	// Acted on once, the duplicate noted, nothing refused printed.
	want := `wake alm_1/2030-01-02T09:00:00Z: alarm alm_1 of alice (once, attempt 1, at_least_once) label "tea" message "brew" conversation "" payload {"cups": 2}
duplicate alm_1/2030-01-02T09:00:00Z (attempt 1): already handled
`
	if got := out.String(); got != want {
		t.Errorf("printed:\n%s\nwant:\n%s", got, want)
	}
}

// failingWriter fails the effect, as a database that is down would.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestReceiverRetryAfterAFailedEffectActs(t *testing.T) {
	rc := NewReceiver([]byte(testSecret), failingWriter{})
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	const key = "alm_1/2030-01-02T09:00:00Z"
	body := webhook.Body(testWake(key))
	sign := func() string { return webhook.Sign([]byte(testSecret), time.Now(), body) }
	if status, _ := post(t, srv.URL, sign(), key, body); status != 500 {
		t.Fatalf("failed effect answered %d; want 500 so chronos retries", status)
	}
	var out syncBuffer
	rc.mu.Lock() // the handler reads out under mu
	rc.out = &out
	rc.mu.Unlock()
	if status, answer := post(t, srv.URL, sign(), key, body); status != 200 || answer != "ok\n" || !strings.HasPrefix(out.String(), "wake "+key) {
		t.Errorf("retry: %d %q, printed %q; want it handled as new", status, answer, out.String())
	}
}

// TestReceiverBinary builds the example, runs it on a free loopback port with the
// secret in the environment, and sends it wakes the way chronos serve does: through
// webhook.Waker.
func TestReceiverBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "receiver")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "CHRONOS_WAKE_SECRET="+testSecret)
	var stdout syncBuffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op once it has exited
		<-exited
	})

	// The first line on stderr names the address it bound.
	lines := bufio.NewScanner(stderr)
	url := ""
	if lines.Scan() {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	var rest bytes.Buffer
	go func() {
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		exited <- cmd.Wait()
	}()
	if url == "" {
		t.Fatalf("no listening address on stderr: %q", lines.Text())
	}

	wake := testWake("alm_1/2030-01-02T09:00:00Z")
	waker, err := webhook.New(webhook.Options{URL: url, Secret: testSecret, UserAgent: "chronos/test"})
	if err != nil {
		t.Fatal(err)
	}
	defer waker.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := waker.Wake(ctx, wake); err != nil {
		t.Fatalf("a signed wake was refused: %v", err)
	}
	wake.Attempt = 2 // redelivered after a lost answer: same occurrence key
	if err := waker.Wake(ctx, wake); err != nil {
		t.Fatalf("a duplicate was refused (it must be acknowledged): %v", err)
	}
	forger, err := webhook.New(webhook.Options{URL: url, Secret: "not-the-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	var refused *webhook.StatusError
	forged := testWake("alm_2/2030-01-02T09:00:00Z")
	if err := forger.Wake(ctx, forged); !errors.As(err, &refused) || refused.Code != http.StatusUnauthorized {
		t.Errorf("forged wake: %v; want HTTP 401", err)
	}
	// A replay of a wake signed ten minutes ago.
	body := webhook.Body(forged)
	if status, _ := post(t, url, webhook.Sign([]byte(testSecret), time.Now().Add(-10*time.Minute), body), forged.OccurrenceKey, body); status != http.StatusUnauthorized {
		t.Errorf("stale wake answered %d; want 401", status)
	}

	// SIGINT: it shuts down cleanly, and printed the wake once and the duplicate.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("exit: %v (stderr %s)", err, rest.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after SIGINT")
	}
	out := stdout.String()
	if strings.Count(out, "wake alm_1/2030-01-02T09:00:00Z:") != 1 || !strings.Contains(out, "duplicate alm_1/2030-01-02T09:00:00Z (attempt 2)") ||
		strings.Contains(out, "alm_2") {
		t.Errorf("stdout:\n%s\nwant the wake once, its duplicate, and nothing of the forged one", out)
	}
}

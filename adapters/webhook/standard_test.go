package webhook_test

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
)

// received is one request a test receiver got.
type received struct {
	header http.Header
	body   []byte
}

func receiver(t *testing.T, status int, header http.Header) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{header: r.Header.Clone(), body: body}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func sampleWake() domain.Wake {
	at := time.Date(2031, 3, 4, 9, 0, 0, 0, time.UTC)
	return domain.Wake{AlarmID: "a1", Owner: "alice", Kind: domain.KindCron, ScheduledFor: at, FiredAt: at,
		Attempt: 1, OccurrenceKey: domain.OccurrenceKey("a1", at), Payload: []byte(`{"n":1}`), Delivery: domain.AtLeastOnce}
}

// Every wake verifies with the Standard Webhooks spec's own Go library and with
// chronos's Verify, with either of two secrets during a rotation: a "whsec_" secret
// (its decoded bytes key webhook-signature) and a plain one (its bytes do; the library
// takes it in base64).
func TestWakesVerifyWithTheStandardWebhooksLibrary(t *testing.T) {
	oldSecret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("the old secret, 32 bytes long..."))
	newSecret := "a plain new secret"
	srv, got := receiver(t, http.StatusOK, nil)
	w, err := webhook.New(webhook.Options{URL: srv.URL, Secret: oldSecret, Secrets: []string{newSecret}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wake := sampleWake()
	if err := w.Wake(t.Context(), wake); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if id := r.header.Get(webhook.StandardIDHeader); id != wake.OccurrenceKey {
		t.Errorf("webhook-id %q, want the occurrence key %q", id, wake.OccurrenceKey)
	}
	for name, secret := range map[string]string{
		"old (whsec_)": oldSecret,
		"new (plain)":  "whsec_" + base64.StdEncoding.EncodeToString([]byte(newSecret)),
	} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Errorf("the Standard Webhooks library refuses the %s secret: %v", name, err)
		}
	}
	for _, secret := range []string{oldSecret, newSecret} {
		if err := webhook.Verify([]byte(secret), r.header.Get(webhook.SignatureHeader), r.body, time.Now(), 0); err != nil {
			t.Errorf("Chronos-Signature with %q: %v", secret, err)
		}
		key, _ := webhook.StandardKey(secret)
		if err := webhook.VerifyStandard(key, r.header, r.body, time.Now(), 0); err != nil {
			t.Errorf("VerifyStandard with %q: %v", secret, err)
		}
	}
	// A third secret verifies neither.
	wh, _ := standardwebhooks.NewWebhook("whsec_" + base64.StdEncoding.EncodeToString([]byte("someone else")))
	if wh.Verify(r.body, r.header) == nil {
		t.Error("a wrong secret verified")
	}
	if err := webhook.Verify([]byte("someone else"), r.header.Get(webhook.SignatureHeader), r.body, time.Now(), 0); !errors.Is(err, webhook.ErrSignatureMismatch) {
		t.Errorf("a wrong secret: %v", err)
	}
}

func TestSecretsRefused(t *testing.T) {
	for _, o := range []webhook.Options{
		{URL: "http://127.0.0.1:1", Secret: "whsec_not base64!"},
		{URL: "http://127.0.0.1:1", Secrets: []string{"ok", ""}},
		{URL: "http://127.0.0.1:1", Secrets: make([]string, webhook.MaxSecrets+1)},
	} {
		if _, err := webhook.New(o); err == nil {
			t.Errorf("New(%+v) accepted it", o)
		}
	}
}

// The receiver's word: Retry-After on a 429 or 503 (seconds or a date) and 410 Gone
// reach the dispatcher through ports.ReceiverVerdict.
func TestReceiverVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		wait   time.Duration
		gone   bool
	}{
		{"429 with seconds", http.StatusTooManyRequests, http.Header{"Retry-After": {"120"}}, 120 * time.Second, false},
		{"503 with a date", http.StatusServiceUnavailable, http.Header{"Retry-After": {time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}}, 90 * time.Second, false},
		{"500 ignores Retry-After", http.StatusInternalServerError, http.Header{"Retry-After": {"120"}}, 0, false},
		{"429 with nonsense", http.StatusTooManyRequests, http.Header{"Retry-After": {"soon"}}, 0, false},
		{"410 Gone", http.StatusGone, nil, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := receiver(t, tc.status, tc.header)
			w, err := webhook.New(webhook.Options{URL: srv.URL, Secret: "s"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			err = w.Wake(t.Context(), sampleWake())
			var se *webhook.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want a StatusError", err)
			}
			if d := se.RetryAfter() - tc.wait; d < -2*time.Second || d > 0 {
				t.Errorf("RetryAfter = %s, want %s", se.RetryAfter(), tc.wait)
			}
			if se.Gone() != tc.gone {
				t.Errorf("Gone = %v", se.Gone())
			}
		})
	}
}

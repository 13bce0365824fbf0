package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
)

// flaky answers the first n requests with status and Retry-After retry ("" for none),
// then 200 with an empty alarm list, counting every request.
func flaky(t *testing.T, n int32, status int, retry string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			if retry != "" {
				w.Header().Set("Retry-After", retry)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			_, _ = w.Write([]byte(`{"alarms":[],"next_cursor":""}`))
		default:
			_, _ = w.Write([]byte(`{"alarm":{"id":"a1"},"deduped":false}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// WithRetry sends again what the server asked to come back for, waiting as Retry-After
// says; a 503 only for requests safe to repeat; nothing without the option.
func TestClientRetry(t *testing.T) {
	t.Parallel()
	list := func(c *client.Client) error {
		_, err := c.ListAlarms(context.Background(), client.ListAlarms{})
		return err
	}
	create := func(key string) func(c *client.Client) error {
		return func(c *client.Client) error {
			_, _, err := c.CreateAlarm(context.Background(), client.CreateAlarm{Delay: time.Minute, IdempotencyKey: key})
			return err
		}
	}
	retry := client.WithRetry(3, 2*time.Second)
	for _, c := range []struct {
		name      string
		failures  int32
		status    int
		header    string
		opts      []client.Option
		call      func(*client.Client) error
		wantCalls int32
		wantErr   bool
	}{
		{"429 with Retry-After, twice", 2, 429, "0", []client.Option{retry}, list, 3, false},
		{"429 as an HTTP date", 1, 429, time.Now().Add(-time.Second).UTC().Format(http.TimeFormat), []client.Option{retry}, create(""), 2, false},
		{"429 more often than the attempts", 5, 429, "0", []client.Option{retry}, list, 3, true},
		{"429 without Retry-After is final", 1, 429, "", []client.Option{retry}, list, 1, true},
		{"429 asking for longer than maxWait", 1, 429, "60", []client.Option{retry}, list, 1, true},
		{"503 on a read", 1, 503, "0", []client.Option{retry}, list, 2, false},
		{"503 on a create with an idempotency key", 1, 503, "", []client.Option{retry}, create("k"), 2, false},
		{"503 on a create without one", 1, 503, "0", []client.Option{retry}, create(""), 1, true},
		{"no option, no retry", 1, 429, "0", nil, list, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, calls := flaky(t, c.failures, c.status, c.header)
			cl, err := client.New(srv.URL, "tok", c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = c.call(cl)
			if (err != nil) != c.wantErr || calls.Load() != c.wantCalls {
				t.Errorf("err %v after %d requests; want error %t after %d", err, calls.Load(), c.wantErr, c.wantCalls)
			}
		})
	}
}

// A context that ends while the client waits to retry stops the wait.
func TestClientRetryStopsWithTheContext(t *testing.T) {
	t.Parallel()
	srv, calls := flaky(t, 5, 429, "2")
	cl, err := client.New(srv.URL, "tok", client.WithRetry(5, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = cl.ListAlarms(ctx, client.ListAlarms{})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second || calls.Load() != 1 {
		t.Errorf("err %v after %s and %d requests; want the context's end, at once", err, time.Since(start), calls.Load())
	}
}

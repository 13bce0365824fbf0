package client

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WithRetry sends a request again, up to attempts times in all, when the server asks
// the client to come back later:
//
//   - 429 (rate_limited, quota_exceeded) with a Retry-After: the request was refused
//     before anything was done, so any request is retried. Without Retry-After the
//     refusal is permanent (a quota no wait frees) and is returned at once.
//   - 503 (the store unavailable): only a request that is safe to repeat, since a 503
//     may answer a write the store made but could not confirm: reads, deletes, a create
//     with an IdempotencyKey and a backfill (both answer the first one's result).
//
// The wait is the Retry-After the server sent (seconds or an HTTP date; 1 s when a 503
// has none), and at most maxWait (0: 30 s): a longer one returns the error at once
// instead. A context's end stops the wait. Without this option nothing is retried.
func WithRetry(attempts int, maxWait time.Duration) Option {
	return func(c *Client) {
		if maxWait <= 0 {
			maxWait = 30 * time.Second
		}
		c.retry = retryPolicy{attempts: attempts, maxWait: maxWait}
	}
}

type retryPolicy struct {
	attempts int // in all, the first included; below 2: no retries
	maxWait  time.Duration
}

// wait says whether attempt (1 for the first) of cl, answered status with header, is
// to be tried again, and after how long.
func (p retryPolicy) wait(attempt, status int, header http.Header, cl call) (time.Duration, bool) {
	if attempt >= p.attempts {
		return 0, false
	}
	d, given := retryAfter(header.Get("Retry-After"), time.Now())
	switch status {
	case http.StatusTooManyRequests:
		if !given {
			return 0, false
		}
	case http.StatusServiceUnavailable:
		if !cl.repeatable && cl.method != http.MethodGet && cl.method != http.MethodHead && cl.method != http.MethodDelete {
			return 0, false
		}
		if !given {
			d = time.Second
		}
	default:
		return 0, false
	}
	return d, d <= p.maxWait
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date (RFC 9110).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(time.Hour/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

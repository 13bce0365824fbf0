package ports

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Waker delivers one wake. It is called concurrently from many goroutines.
//
// Return nil only when the receiver acknowledged the wake. Any error is a failed
// attempt; its text becomes the alarm's last_error, so make it say what happened
// ("HTTP 503: <body prefix>", "timeout after 10s"). Honour ctx: when it is done, give up
// promptly and return an error. Never retry inside Wake: retries are the dispatcher's.
type Waker interface {
	Wake(ctx context.Context, w domain.Wake) error
}

// ReceiverVerdict is implemented by a Waker's error (found with errors.As) when the
// receiver said more than "failed": when to try again, or not to. The dispatcher then
// moves the retry to that time (within its backoff cap) or stops retrying the
// occurrence: a once alarm fails, a series moves on to its next occurrence.
type ReceiverVerdict interface {
	error
	// RetryAfter is the wait the receiver asked for (Retry-After on a 429 or 503); 0
	// when it asked none.
	RetryAfter() time.Duration
	// Gone reports that the receiver will never take this occurrence (410 Gone).
	Gone() bool
}

// Deferral is implemented by a Waker's error (found with errors.As) when the wake was
// not sent and is not an attempt: the alarm is due again after DeferFor, nothing
// counted. dispatch.EndpointRouter returns it when an endpoint has no room for another wake
// or its breaker is open.
type Deferral interface {
	error
	DeferFor() time.Duration
	// DeferReason is one of the Deferred* reasons of Metrics.Deferred.
	DeferReason() string
}

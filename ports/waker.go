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

// ResponseWaker is a Waker that also reports what the receiver answered, for the
// attempt log (AlarmReader.Attempts). It is optional: for a Waker without it the
// dispatcher records the attempt's duration and error text only (an in-process handler
// has no answer to report).
type ResponseWaker interface {
	Waker
	// WakeResponse delivers w exactly as Wake would (its error means what Wake's does)
	// and returns the receiver's answer whenever there was one, a refusal too (a 503
	// with its error); the zero Response when none came (a transport error, a timeout,
	// a wake held back). It reads at most its configured number of body bytes, none
	// from an answer without a body, so the common empty 2xx costs nothing more.
	WakeResponse(ctx context.Context, w domain.Wake) (Response, error)
}

// Response is a receiver's answer to one wake, as a ResponseWaker reports it.
type Response struct {
	Status      int    // the HTTP status; 0: no answer
	ContentType string // the Content-Type header; "" when none
	Body        []byte // the first bytes of the body; nil when none were read
	Truncated   bool   // the body went on past Body
}

// Receipt is the attempt log's record of a wake that took took and got r, its body
// within bodyBytes (domain.Receipt.Kept).
func (r Response) Receipt(took time.Duration, bodyBytes int) domain.Receipt {
	return domain.Receipt{Duration: took, Status: r.Status, ContentType: r.ContentType, Body: r.Body,
		Truncated: r.Truncated}.Kept(bodyBytes)
}

// WakeFor delivers w with wk, through WakeResponse when wk is a ResponseWaker (the
// zero Response otherwise): how a waker that wraps another passes the answer through.
func WakeFor(ctx context.Context, wk Waker, w domain.Wake) (Response, error) {
	if rw, ok := wk.(ResponseWaker); ok {
		return rw.WakeResponse(ctx, w)
	}
	return Response{}, wk.Wake(ctx, w)
}

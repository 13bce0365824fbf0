package chronos

import (
	"errors"
	"time"
)

// RetryAfter wraps a handler's error to ask for the retry at d from now instead of
// after the backoff (never later than the backoff cap), as a webhook receiver's
// Retry-After does. A nil err reads "retry later".
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		err = errors.New("the handler asked to retry later")
	}
	return &verdict{err: err, wait: d}
}

// Gone wraps a handler's error to say the occurrence will never be handled: it is not
// retried (a once alarm fails, a series moves on to its next occurrence), as a webhook
// receiver's 410 Gone says. A nil err reads "gone".
func Gone(err error) error {
	if err == nil {
		err = errors.New("the handler will never take this occurrence")
	}
	return &verdict{err: err, gone: true}
}

// verdict is a handler's error with what it says about a retry (ports.ReceiverVerdict).
type verdict struct {
	err  error
	wait time.Duration
	gone bool
}

func (v *verdict) Error() string             { return v.err.Error() }
func (v *verdict) Unwrap() error             { return v.err }
func (v *verdict) RetryAfter() time.Duration { return v.wait }
func (v *verdict) Gone() bool                { return v.gone }

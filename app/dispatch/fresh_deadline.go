package dispatch

import (
	"context"
	"errors"
	"time"
)

// freshDeadline is ctx with its delivery deadline replaced by a new one, timeout from
// now: a wake that waited in its endpoint's queue gets its whole delivery timeout for
// the send. Everything else that ends ctx (shutdown abandoning the wake, a cancel)
// still ends the new context, with the same cause; only ctx's own delivery deadline
// (errDeliveryTimeout) does not.
func freshDeadline(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	detached, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); !errors.Is(cause, errDeliveryTimeout) {
			cancel(cause)
		}
	})
	timed, cancelTimed := context.WithTimeoutCause(detached, timeout, errDeliveryTimeout)
	return timed, func() {
		cancelTimed()
		stop()
		cancel(nil)
	}
}

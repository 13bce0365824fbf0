package ports

import (
	"context"

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

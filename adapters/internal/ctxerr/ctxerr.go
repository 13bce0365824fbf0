// Package ctxerr is the stores' one rule for context errors: an error that is, or wraps,
// context.Canceled or context.DeadlineExceeded is the caller's own ending, not a store
// failure, so each store's mapError returns it as it is, never mapped to a portable error
// nor prefixed (ports: "Context errors ... are returned untouched"). Whatever the driver
// wrapped around it stays, and errors.Is still finds the context's error.
package ctxerr

import (
	"context"
	"errors"
)

// Is reports whether err is, or wraps, context.Canceled or context.DeadlineExceeded.
func Is(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

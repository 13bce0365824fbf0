package domain

import (
	"errors"
	"fmt"
)

// ValidationError is a refusal of user input. Field names the offending input field
// with the name the HTTP API uses ("cron_expr", "payload", ...).
type ValidationError struct {
	Field   string
	Message string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrInvalidState is returned when an operation does not apply to the alarm as it is,
// for example pausing a once alarm or resuming a cancelled one. Wrapped with detail.
var ErrInvalidState = errors.New("operation not allowed in the alarm's current state")

func invalidState(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidState, fmt.Sprintf(format, args...))
}

// ErrUnauthenticated: a caller's credential (an API token) is missing, unknown or
// revoked. The token use cases return it; the API answers 401, the dashboard sends the
// browser to sign in.
var ErrUnauthenticated = errors.New("missing, unknown or revoked token")

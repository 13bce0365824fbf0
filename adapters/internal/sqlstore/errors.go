package sqlstore

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/chronoshq/chronos/adapters/internal/ctxerr"
	"github.com/chronoshq/chronos/ports"
)

// Mapped marks err as already what the caller must see (a portable error with its
// detail, or a callback's own error): a store's error mapping returns it as it is
// rather than mapping or prefixing it again. Mapped(nil) is nil, and a context error
// stays as it is (ctxerr): every mapping returns it untouched anyway.
func Mapped(err error) error {
	if err == nil || ctxerr.Is(err) {
		return err
	}
	return mapped{err}
}

// IsMapped reports whether err was marked by Mapped.
func IsMapped(err error) bool {
	var m mapped
	return errors.As(err, &m)
}

type mapped struct{ err error }

func (m mapped) Error() string { return m.err.Error() }
func (m mapped) Unwrap() error { return m.err }

// notFound is ErrNotFound naming what was missing.
func (e *Engine[T]) notFound(what, id string) error {
	return Mapped(fmt.Errorf("%s: %s %q: %w", e.Name, what, id, ports.ErrNotFound))
}

// notFoundByHash is ErrNotFound for a lookup by a credential's hash, which stays out of
// the message: error text ends up in logs.
func (e *Engine[T]) notFoundByHash(what string) error {
	return Mapped(fmt.Errorf("%s: no %s has this hash: %w", e.Name, what, ports.ErrNotFound))
}

// MapDriverError is every dialect's mapError but the driver's own cases: nil stays nil;
// a context error, or one already mapped, passes as it is; noRows (the driver's "no
// rows") is ErrNotFound; any other error is what classify makes of it (nil when it is
// none of the portable errors), or err prefixed with the store's name.
func MapDriverError(name string, err, noRows error, classify func(error) error) error {
	switch {
	case err == nil:
		return nil
	case ctxerr.Is(err), IsMapped(err):
		return err
	case errors.Is(err, noRows):
		return fmt.Errorf("%s: %w", name, ports.ErrNotFound)
	}
	if mapped := classify(err); mapped != nil {
		return mapped
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Disconnected reports the errors of any driver that say the server could not be
// reached or broke the connection: the statement may succeed later.
func Disconnected(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// A database without a channel between its clients (SQLite's processes sharing a file,
// MySQL and MariaDB, where polling a table would cost more than the tick it shortens)
// has no wake hints: dispatchers rely on their tick, NextDue and in-process hints. A
// store with a channel (PostgreSQL's LISTEN/NOTIFY) defines both methods itself.

// PublishHint is unsupported.
func (e *Engine[T]) PublishHint(context.Context, time.Time) error {
	return fmt.Errorf("%s: wake hints: %w", e.Name, ports.ErrUnsupported)
}

// SubscribeHints is unsupported.
func (e *Engine[T]) SubscribeHints(context.Context) (<-chan time.Time, error) {
	return nil, fmt.Errorf("%s: wake hints: %w", e.Name, ports.ErrUnsupported)
}

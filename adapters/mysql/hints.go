package mysql

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// MySQL and MariaDB have no LISTEN/NOTIFY, and polling a table for hints would cost
// more than the dispatcher's own tick it is meant to shorten. Capabilities declares
// WakeHints false; dispatchers rely on NextDue, their tick and in-process hints.

// PublishHint is unsupported.
func (s *Store) PublishHint(context.Context, time.Time) error {
	return fmt.Errorf("mysql: wake hints: %w", ports.ErrUnsupported)
}

// SubscribeHints is unsupported.
func (s *Store) SubscribeHints(context.Context) (<-chan time.Time, error) {
	return nil, fmt.Errorf("mysql: wake hints: %w", ports.ErrUnsupported)
}

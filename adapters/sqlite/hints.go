package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// SQLite has no channel between processes sharing a file, so the store declares no
// WakeHints: dispatchers rely on their tick, NextDue and in-process hints.

// PublishHint is unsupported.
func (s *Store) PublishHint(context.Context, time.Time) error {
	return fmt.Errorf("sqlite: wake hints: %w", ports.ErrUnsupported)
}

// SubscribeHints is unsupported.
func (s *Store) SubscribeHints(context.Context) (<-chan time.Time, error) {
	return nil, fmt.Errorf("sqlite: wake hints: %w", ports.ErrUnsupported)
}

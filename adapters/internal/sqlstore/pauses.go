package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// DuePauses returns the ids of at most limit paused alarms whose pause has ended,
// earliest end first.
func (e *Engine[T]) DuePauses(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	ids, err := List(ctx, e.Read, func(r sqlrow.Scanner) (id string, err error) {
		return id, r.Scan(&id)
	}, e.SQL.DuePauses, e.NowArg(), limit)
	return ids, e.mapError(err)
}

// CountActive counts the owner's active and paused alarms, at most atMost of them.
func (e *Engine[T]) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	var n int
	if err := e.Read.QueryRow(ctx, e.SQL.CountActive, owner, atMost).Scan(&n); err != nil {
		return 0, e.mapError(err)
	}
	return n, nil
}

package sqlstore

import "context"

// CountActive counts the owner's active and paused alarms, at most atMost of them.
func (e *Engine[T]) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	var n int
	if err := e.Read.QueryRow(ctx, e.SQL.CountActive, owner, atMost).Scan(&n); err != nil {
		return 0, e.mapError(err)
	}
	return n, nil
}

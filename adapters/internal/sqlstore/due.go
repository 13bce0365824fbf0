package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

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

// NextDue is when the earliest unleased active alarm falls due, and false when there is
// none.
func (e *Engine[T]) NextDue(ctx context.Context) (time.Time, bool, error) {
	var next T
	err := e.Read.QueryRow(ctx, e.SQL.NextDue).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, e.mapError(err)
	}
	at := e.ToTime(next)
	return at, !at.IsZero(), nil
}

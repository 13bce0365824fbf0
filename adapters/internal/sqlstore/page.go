package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
)

// Page runs q, a list or admin page that reads at most limit+1 alarms newest first: the
// one row more says whether another page follows. It returns the first limit alarms
// and the cursor of the next page, "" on the last.
func (e *Engine[T]) Page(ctx context.Context, limit int, q string, args ...any) ([]domain.Alarm, string, error) {
	rows, err := e.Read.Query(ctx, q, args...)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	defer rows.Close()
	alarms, err := e.ScanAlarms(rows, limit+1)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	alarms, next := page.Cut(alarms, limit)
	return alarms, next, nil
}

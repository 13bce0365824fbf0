package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
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

// PageFunc reads one page of the owner's alarms ("" across owners) that match f.
type PageFunc func(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error)

// ListAlarms is the port's List over a dialect's two families of page statements: ownerPage,
// the owner API's page (f.OwnerPage: one owner, at most a status), which walks the
// owner's index and stops after the page; and filtered, every other page. A scope that
// sees nothing is an empty page, whatever the filters.
func ListAlarms(ctx context.Context, f ports.ListFilter, ownerPage, filtered PageFunc) ([]domain.Alarm, string, error) {
	switch {
	case f.Scope.None():
		return []domain.Alarm{}, "", nil
	case f.OwnerPage():
		return ownerPage(ctx, f.Scope.Owner(), f)
	}
	return filtered(ctx, f.Scope.Owner(), f)
}

package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// List returns a page of the alarms in f's scope matching f, newest first, keyset-
// paginated on id: OwnerPage, the owner API's page (f.OwnerPage: one owner, at most a
// status), which walks the owner's index and stops after the page; a page with tags
// (tagPage), whose walk of a pair's index may stop after TagWalk entries and return a
// short page with a cursor; and FilteredPage, every other page. A scope that sees
// nothing is an empty page, whatever the filters.
func (e *Engine[T]) List(ctx context.Context, f ports.ListFilter) ([]domain.Alarm, string, error) {
	if f.Scope.None() {
		return []domain.Alarm{}, "", nil
	}
	after, err := f.After()
	if err != nil {
		return nil, "", err
	}
	limit := page.Size(f.Limit)
	if f.OwnerPage() {
		q, args := e.OwnerPage(f.Scope.Owner(), f.Status, after, limit)
		return e.readPage(ctx, limit, q, args...)
	}
	// Failed since is status failed (only failed alarms match it): with another status
	// nothing can match, and no walk is needed to find that out; without one, a page
	// walks the failed alarms alone.
	if !f.FailedSince.IsZero() {
		if f.Status != "" && f.Status != domain.StatusFailed {
			return []domain.Alarm{}, "", nil
		}
		f.Status = domain.StatusFailed
	}
	if len(f.Tags) > 0 {
		q, args, walked := e.tagPage(f, after, limit)
		if walked {
			return e.readWalk(ctx, limit, q, args...)
		}
		return e.readPage(ctx, limit, q, args...)
	}
	q, args := e.FilteredPage(f, after, limit)
	return e.readPage(ctx, limit, q, args...)
}

// readPage runs q, a page that reads at most limit+1 alarms newest first, and their
// tags in the same statement: the one row more says whether another page follows. It
// returns the first limit alarms, fewer when their size ends the page (sizedRows), and
// the cursor of the next page, "" on the last.
func (e *Engine[T]) readPage(ctx context.Context, limit int, q string, args ...any) ([]domain.Alarm, string, error) {
	rows, err := e.Read.Query(ctx, e.tagged(q, ` ORDER BY r.id DESC`), args...)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	defer rows.Close()
	sized := newSizedRows(rows)
	alarms, err := e.scanTagged(sized, limit+1)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	alarms, next := page.Cut(alarms, limit)
	if next == "" && sized.cut {
		next = ports.EncodeListCursor(alarms[len(alarms)-1].ID)
	}
	return alarms, next, nil
}

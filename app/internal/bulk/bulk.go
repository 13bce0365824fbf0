// Package bulk is what the operator's and the owners' bulk actions share: a walk of a
// list filter's pages, and an action applied to each alarm of a page through the
// store's Mutate, a few at a time. Every alarm is its own short transaction, exactly
// the one the single action writes, so no bulk call holds a long one.
package bulk

import (
	"context"
	"errors"
	"sync"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Store is the part of the store a bulk action reads and changes.
type Store interface {
	List(ctx context.Context, f ports.ListFilter) ([]domain.Alarm, string, error)
	Mutate(ctx context.Context, scope ports.Scope, id string, fn ports.MutateFunc) (domain.Alarm, error)
}

// Workers bounds the store calls a bulk action makes at once: enough to hide round
// trips, few enough to leave the pool to the dispatcher.
const Workers = 8

// WalkFrom reads the alarms f matches, newest first, in pages of at most
// ports.MaxListLimit, and calls page with each: it starts at f.Cursor ("" the first
// page), reads at most limit alarms (> 0), and returns the cursor of the page after the
// last one it read, "" when there is none, so that a call goes on where an earlier one
// stopped. Short pages (a filtered page may be short, even empty) do not stop it, only
// the empty cursor or limit.
func WalkFrom(ctx context.Context, store Store, f ports.ListFilter, limit int, page func([]domain.Alarm) error) (matched int, next string, err error) {
	for matched < limit {
		f.Limit = min(limit-matched, ports.MaxListLimit)
		as, next, err := store.List(ctx, f)
		if err != nil {
			return matched, "", err
		}
		matched += len(as)
		if err := page(as); err != nil {
			return matched, "", err
		}
		if next == "" {
			return matched, "", nil
		}
		f.Cursor = next
	}
	return matched, f.Cursor, nil
}

// Mutate applies fn to each of as within scope, Workers at a time, and returns the
// alarms whose status it changed, as they are after. An alarm another call changed or
// deleted since the page was read (ErrNotFound, ErrInvalidState) is skipped.
func Mutate(ctx context.Context, store Store, scope ports.Scope, as []domain.Alarm, fn ports.MutateFunc) ([]domain.Alarm, error) {
	var (
		mu      sync.Mutex
		changed []domain.Alarm
	)
	err := Each(ctx, as, func(a domain.Alarm) error {
		after, err := store.Mutate(ctx, scope, a.ID, fn)
		switch {
		case errors.Is(err, ports.ErrNotFound), errors.Is(err, domain.ErrInvalidState):
		case err != nil:
			return err
		case after.Status != a.Status:
			mu.Lock()
			changed = append(changed, after)
			mu.Unlock()
		}
		return nil
	})
	return changed, err
}

// Each calls do with each of as, Workers at a time (so do must be safe for concurrent
// use), and stops handing out alarms once a call failed or ctx ended; it returns every
// error do returned, and ctx's.
func Each(ctx context.Context, as []domain.Alarm, do func(domain.Alarm) error) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		next = make(chan domain.Alarm)
	)
	for range min(Workers, len(as)) {
		wg.Go(func() {
			for a := range next {
				if err := do(a); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, a := range as {
		mu.Lock()
		failed := len(errs) > 0
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		next <- a
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

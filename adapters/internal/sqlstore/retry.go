package sqlstore

import (
	"context"
	"time"
)

// Retry runs fn, and runs it again when it failed with an error the database undid whole
// (retryable: a deadlock victim, a serialization failure, a lock wait timeout), up to
// attempts in all. fn is a whole transaction or one statement in autocommit, so running
// it again is safe. With pause, each new attempt waits pause(attempt) first (ending early
// with the context's error); without, it follows at once unless the context ended.
func Retry(ctx context.Context, attempts int, retryable func(error) bool, pause func(attempt int) time.Duration, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !retryable(err) || attempt == attempts {
			return err
		}
		if pause == nil {
			if ctx.Err() != nil {
				return err
			}
			continue
		}
		if err := sleep(ctx, pause(attempt)); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

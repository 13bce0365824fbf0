package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

var errVictim = errors.New("victim")

func TestRetryRunsAgainOnlyWhatTheDatabaseUndid(t *testing.T) {
	retryable := func(err error) bool { return errors.Is(err, errVictim) }
	for _, c := range []struct {
		name     string
		attempts int
		fails    []error // what each call returns, then nil
		calls    int
		want     error
	}{
		{"success", 3, nil, 1, nil},
		{"a victim, then success", 3, []error{errVictim}, 2, nil},
		{"victims up to the bound", 3, []error{errVictim, errVictim, errVictim, errVictim}, 3, errVictim},
		{"another error is not run again", 3, []error{context.DeadlineExceeded}, 1, context.DeadlineExceeded},
	} {
		for _, pause := range []func(int) time.Duration{nil, func(int) time.Duration { return time.Microsecond }} {
			calls := 0
			err := Retry(context.Background(), c.attempts, retryable, pause, func() error {
				calls++
				if calls <= len(c.fails) {
					return c.fails[calls-1]
				}
				return nil
			})
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) || calls != c.calls {
				t.Errorf("%s (pause %v): err %v after %d calls, want %v after %d", c.name, pause != nil, err, calls, c.want, c.calls)
			}
		}
	}
}

func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err := Retry(ctx, 5, func(error) bool { return true }, func(int) time.Duration { return time.Hour }, func() error {
		calls++
		return errVictim
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("err %v after %d calls, want context.Canceled after 1", err, calls)
	}
}

func TestMappedIsTransparent(t *testing.T) {
	inner := fmt.Errorf("sqlite: %w", errVictim)
	m := Mapped(inner)
	if !IsMapped(m) || IsMapped(inner) || m.Error() != inner.Error() || !errors.Is(m, errVictim) {
		t.Errorf("Mapped(%v) = %v: IsMapped %v, errors.Is %v", inner, m, IsMapped(m), errors.Is(m, errVictim))
	}
	if Mapped(nil) != nil || Mapped(context.Canceled) != context.Canceled {
		t.Error("Mapped must keep nil and context errors as they are")
	}
}

func TestNumbered(t *testing.T) {
	s := Statements{GetAlarm: `SELECT a FROM t WHERE id = ? AND (x > ? OR y = ?)`, ListTokens: `SELECT 1`}.Numbered()
	if s.GetAlarm != `SELECT a FROM t WHERE id = $1 AND (x > $2 OR y = $3)` || s.ListTokens != `SELECT 1` {
		t.Errorf("Numbered: %q, %q", s.GetAlarm, s.ListTokens)
	}
}

package memory

import (
	"context"
	"slices"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Attempts walks the alarm's events from the newest, as a database walks (alarm_id,
// id) backwards, keeping those that carry a receipt.
func (s *Store) Attempts(ctx context.Context, q ports.AttemptsQuery) ([]domain.Event, string, error) {
	before, err := q.Before()
	if err != nil {
		return nil, "", err
	}
	size := page.Attempts(q.Limit)
	var next string
	attempts, err := txv(s, ctx, func() ([]domain.Event, error) {
		a, err := s.find(q.Scope, q.AlarmID)
		if err != nil {
			return nil, err
		}
		out := []domain.Event{}
		evs := s.events[a.ID]
		for i := len(evs) - 1; i >= 0 && len(out) <= size; i-- {
			if ev := evs[i]; ev.IsAttempt() && ev.ID < before {
				ev.Receipt = keepReceipt(ev.Receipt)
				out = append(out, ev)
			}
		}
		out, next = page.CutAttempts(out, size)
		return out, nil
	})
	return attempts, next, err
}

// keepReceipt is a copy of r as the SQL stores keep it (the duration in whole
// microseconds), its body copied so no caller's slice aliases the store's.
func keepReceipt(r *domain.Receipt) *domain.Receipt {
	if r == nil {
		return nil
	}
	c := *r
	c.Duration = c.Duration.Truncate(time.Microsecond)
	c.Body = slices.Clone(c.Body)
	if len(c.Body) == 0 {
		c.Body = nil
	}
	return &c
}

// withoutReceipts is a copy of evs for the history, which does not carry receipts.
func withoutReceipts(evs []domain.Event) []domain.Event {
	out := slices.Clone(evs)
	for i := range out {
		out[i].Receipt = nil
	}
	return out
}

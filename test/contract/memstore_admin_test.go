package contract

import (
	"context"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The reference store's admin and state sides.

func (s *memStore) AdminList(ctx context.Context, f ports.AdminFilter) ([]domain.Alarm, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	after := ""
	if f.Cursor != "" {
		b, err := hex.DecodeString(strings.TrimPrefix(f.Cursor, "c:"))
		if err != nil || !strings.HasPrefix(f.Cursor, "c:") || len(b) != 36 {
			return nil, "", &domain.ValidationError{Field: "cursor", Message: "is not a cursor from this store"}
		}
		after = string(b)
	}
	f.FailedSince = memTrunc(f.FailedSince)
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)
	s.mu.Lock()
	var out []domain.Alarm
	for _, a := range s.alarms {
		if (f.Owner == "" || a.Owner == f.Owner) && (f.Status == "" || a.Status == f.Status) &&
			(f.Kind == "" || a.Kind == f.Kind) && strings.HasPrefix(a.Label, f.LabelPrefix) &&
			(f.FailedSince.IsZero() || (a.Status == domain.StatusFailed && !a.UpdatedAt.Before(f.FailedSince))) &&
			(after == "" || a.ID < after) {
			out = append(out, a)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(x, y domain.Alarm) int { return strings.Compare(y.ID, x.ID) })
	if len(out) <= limit {
		return out, "", nil
	}
	out = out[:limit]
	return out, "c:" + hex.EncodeToString([]byte(out[limit-1].ID)), nil
}

func (s *memStore) AdminGet(ctx context.Context, id string) (domain.Alarm, error) {
	if err := ctx.Err(); err != nil {
		return domain.Alarm{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.alarms[id]
	if !ok {
		return domain.Alarm{}, ports.ErrNotFound
	}
	return a, nil
}

func (s *memStore) AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error) {
	a, err := s.AdminGet(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.Events(ctx, a.Owner, id, limit)
}

func (s *memStore) AdminMutate(ctx context.Context, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	a, err := s.AdminGet(ctx, id)
	if err != nil {
		return domain.Alarm{}, err
	}
	return s.Mutate(ctx, a.Owner, id, fn)
}

func (s *memStore) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if err := ctx.Err(); err != nil {
		return ports.Deleted{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var d ports.Deleted
	gone := map[string]bool{}
	for _, id := range ids {
		if _, ok := s.alarms[id]; ok {
			delete(s.alarms, id)
			gone[id] = true
			d.Alarms++
		}
	}
	s.events = slices.DeleteFunc(s.events, func(ev domain.Event) bool {
		if gone[ev.AlarmID] {
			d.Events++
			return true
		}
		return false
	})
	return d, nil
}

func (s *memStore) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	if err := ctx.Err(); err != nil {
		return ports.AlarmCounts{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c := ports.AlarmCounts{ByStatus: map[domain.Status]int64{}, Now: now}
	for _, st := range domain.Statuses {
		c.ByStatus[st] = 0
	}
	for _, a := range s.alarms {
		c.ByStatus[a.Status]++
		if a.Status == domain.StatusActive && !a.NextFireAt.After(now) && (a.ClaimedBy == "" || a.ClaimedAt.Before(now.Add(-lease))) {
			c.Due++
			if c.OldestDue.IsZero() || a.NextFireAt.Before(c.OldestDue) {
				c.OldestDue = a.NextFireAt
			}
		}
	}
	return c, nil
}

func (s *memStore) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	if err := ctx.Err(); err != nil {
		return ports.State{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.state[name]
	return st, ok, nil
}

func (s *memStore) PutState(ctx context.Context, name, value string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[string]ports.State{}
	}
	s.state[name] = ports.State{Value: value, UpdatedAt: s.now()}
	return nil
}

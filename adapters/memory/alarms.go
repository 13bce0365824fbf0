package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// keep is a as stored, on its way in and on its way out: times truncated, so what a
// caller gets back (a lease above all) equals what is kept; the series' start and end
// to the nanosecond, as the SQL stores keep them in text; payload, tags and calendars
// copied, so a caller changing its slice or map cannot change the store.
func keep(a domain.Alarm) domain.Alarm {
	for _, t := range a.Times() {
		*t = trunc(*t)
	}
	a.Series.StartAt, a.Series.EndAt = a.Series.StartAt.UTC(), a.Series.EndAt.UTC()
	a.Payload, a.Tags = slices.Clone(a.Payload), maps.Clone(a.Tags)
	a.Series.ExcludeCalendars = slices.Clone(a.Series.ExcludeCalendars)
	if len(a.Tags) == 0 {
		a.Tags = nil // none is nil, as every store reads it
	}
	return a
}

func byID(x, y domain.Alarm) int { return strings.Compare(x.ID, y.ID) }

// CreateBatch: key check and insert are one transaction, so N concurrent creates with
// one key make one alarm. A database needs a unique index on (owner, idempotency_key),
// and an insert that loses the race to it must read and return the winner, not fail.
func (s *Store) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	return txv(s, ctx, func() ([]ports.CreateResult, error) {
		res := make([]ports.CreateResult, len(as))
		for i, a := range as {
			res[i] = s.create(a)
		}
		return res, nil
	})
}

// create is one item of CreateBatch: the key first, so a deduped create wins whatever
// a says and a key repeated in a batch dedupes to its first item; then the INSERT, so
// an id conflict fails its own item only. Events makes the created event; none is stored.
func (s *Store) create(a domain.Alarm) ports.CreateResult {
	twins := s.alarms.rows(func(b domain.Alarm) bool {
		return a.IdempotencyKey != "" && b.IdempotencyKey == a.IdempotencyKey && b.Owner == a.Owner
	}, nil)
	if len(twins) > 0 {
		switch twin := twins[0]; domain.OnRepeat(twin, a) {
		case domain.RepeatReturns:
			return ports.CreateResult{Alarm: keep(twin), Deduped: true}
		case domain.RepeatReplaces:
			p := domain.Replace(twin, a)
			s.appendEvents(p.Event)
			return ports.CreateResult{Alarm: s.alarms.put(p.ApplyTo(twin)), Replaced: true}
		case domain.RepeatTakesKey:
			if _, taken := s.alarms.byKey[a.ID]; !taken { // else the INSERT fails: the key stays
				s.appendEvents(domain.KeyReleased(twin, a))
				twin.IdempotencyKey = ""
				s.alarms.put(twin)
			}
		}
	}
	a.Debounce = nil
	a, err := s.alarms.insert(a)
	return ports.CreateResult{Alarm: a, Err: err}
}

// CreateMany rolls back at the first alarm CreateBatch would dedupe or refuse: all or
// nothing. ImportAlarms is the same: it keeps every field it is given.
func (s *Store) CreateMany(ctx context.Context, as []domain.Alarm) error {
	return s.tx(ctx, func() error {
		for i, a := range as {
			a.Debounce = nil // all or nothing: never a replace
			if r := s.create(a); r.Err != nil || r.Deduped {
				s.remove(idsOf(as[:i])...)
				return fmt.Errorf("memory: bulk create: alarm %q (key %q): %w", a.ID, a.IdempotencyKey, ports.ErrConflict)
			}
		}
		return nil
	})
}

func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// find is the alarm with this id if scope sees it: an unknown id and an alarm out of
// scope are both ErrNotFound, so nothing leaks. Owner and operator calls share it.
func (s *Store) find(scope ports.Scope, id string) (domain.Alarm, error) {
	if a, err := s.alarms.get(id); err == nil && scope.Sees(a.Owner) {
		return a, nil
	}
	return domain.Alarm{}, fmt.Errorf("memory: alarm %q: %w", id, ports.ErrNotFound)
}

func (s *Store) Get(ctx context.Context, scope ports.Scope, id string) (domain.Alarm, error) {
	return txv(s, ctx, func() (domain.Alarm, error) { return s.find(scope, id) })
}

// List walks every alarm from the newest (ports.ListFilter.Matches); a database walks
// an index on (owner, status, id) for an owner's page (ListFilter.OwnerPage) and stops
// after the page, and its tag index for f.Tags (ports.ListFilter.Tags).
func (s *Store) List(ctx context.Context, f ports.ListFilter) (as []domain.Alarm, next string, err error) {
	after, err := f.After()
	if err != nil {
		return nil, "", err
	}
	f.FailedSince = trunc(f.FailedSince) // compared at the store's precision
	err = s.do(ctx, func() {
		as, next = page.Bounded(page.Cut(s.alarms.rows(func(a domain.Alarm) bool { return (after == "" || a.ID < after) && f.Matches(a) },
			func(x, y domain.Alarm) int { return byID(y, x) }), page.Size(f.Limit)))
	})
	return as, next, err
}

// Mutate reads, decides and writes in one transaction: no claim and no other Mutate
// comes between the read and the write. fn's error comes back as is.
func (s *Store) Mutate(ctx context.Context, scope ports.Scope, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return txv(s, ctx, func() (domain.Alarm, error) {
		a, err := s.find(scope, id)
		if err != nil {
			return domain.Alarm{}, err
		}
		t, changed, err := fn(a, s.now())
		if err != nil || !changed {
			return a, err
		}
		t.AlarmID, t.Fence = a.ID, domain.Fence{} // unfenced: the transaction is the guard
		s.apply(t)                                // never with a Notice: only Decide makes one
		return s.alarms.get(a.ID)
	})
}

func (s *Store) Events(ctx context.Context, scope ports.Scope, id string, limit int) ([]domain.Event, error) {
	limit = page.Events(limit)
	return txv(s, ctx, func() ([]domain.Event, error) {
		a, err := s.find(scope, id)
		if err != nil {
			return nil, err
		}
		return domain.WithCreated(history(first(s.events[a.ID], limit)), domain.CreatedEvent(a.ID, a.CreatedAt, a.FireAt), limit), nil
	})
}

// Attempts walks the alarm's events from the newest, as a database walks (alarm_id,
// id) backwards, keeping those that carry a receipt.
func (s *Store) Attempts(ctx context.Context, q ports.AttemptsQuery) ([]domain.Event, string, error) {
	before, err := q.Before()
	if err != nil {
		return nil, "", err
	}
	size := page.Attempts(q.Limit)
	attempts, err := txv(s, ctx, func() ([]domain.Event, error) {
		a, err := s.find(q.Scope, q.AlarmID)
		if err != nil {
			return nil, err
		}
		attempts := []domain.Event{}
		for _, ev := range slices.Backward(s.events[a.ID]) {
			if ev.IsAttempt() && ev.ID < before && len(attempts) <= size {
				ev.Receipt = keepReceipt(ev.Receipt)
				attempts = append(attempts, ev)
			}
		}
		return attempts, nil
	})
	attempts, next := page.CutAttempts(attempts, size)
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

// history is a copy of evs as a history shows them: without receipts.
func history(evs []domain.Event) []domain.Event {
	evs = slices.Clone(evs)
	for i := range evs {
		evs[i].Receipt = nil
	}
	return evs
}

// appendEvents numbers evs from the store's sequence and appends them to their alarms.
func (s *Store) appendEvents(evs ...domain.Event) {
	for _, ev := range evs {
		s.lastEvent++
		ev.ID, ev.At, ev.ScheduledFor = s.lastEvent, trunc(ev.At), trunc(ev.ScheduledFor)
		ev.Receipt = keepReceipt(ev.Receipt)
		s.events[ev.AlarmID] = append(s.events[ev.AlarmID], ev)
	}
}

// remove deletes the alarms with these ids and their events: how many of each.
func (s *Store) remove(ids ...string) (d ports.Deleted) {
	for _, id := range ids {
		if s.alarms.remove(id) == nil {
			d.Alarms, d.Events = d.Alarms+1, d.Events+len(s.events[id])
			delete(s.events, id)
		}
	}
	return d
}

func idsOf(as []domain.Alarm) []string {
	ids := []string{}
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

// DeleteAlarms deletes leased alarms too: a worker's later outcome is then stale.
func (s *Store) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if err := ports.CheckDeleteIDs(ids); err != nil {
		return ports.Deleted{}, err
	}
	return txv(s, ctx, func() (ports.Deleted, error) { return s.remove(ids...), nil })
}

func (s *Store) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	return txv(s, ctx, func() (ports.AlarmCounts, error) {
		c := ports.AlarmCounts{ByStatus: map[domain.Status]int64{}, Now: s.now()}
		for _, st := range domain.Statuses { // every status, zero included
			c.ByStatus[st] = int64(len(s.alarms.rows(func(a domain.Alarm) bool { return a.Status == st }, nil)))
		}
		if due := s.due(c.Now, lease); len(due) > 0 {
			c.Due, c.OldestDue = int64(len(due)), due[0].NextFireAt
		}
		return c, nil
	})
}

// CountActive: a database walks its (owner, status) index and stops after atMost.
func (s *Store) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	return txv(s, ctx, func() (int, error) {
		return min(len(s.alarms.rows(func(a domain.Alarm) bool { return a.Owner == owner && a.Status.CountsTowardQuota() }, nil)), atMost), nil
	})
}

// DeleteExpiredAlarms: a database walks an index on terminal rows by updated_at.
func (s *Store) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	return txv(s, ctx, func() (ports.Deleted, error) {
		expired := s.alarms.rows(func(a domain.Alarm) bool {
			return a.Status.Terminal() && a.ClaimedBy == "" && a.UpdatedAt.Before(trunc(p.Before))
		}, func(x, y domain.Alarm) int { return stampThenID(x.UpdatedAt, y.UpdatedAt, x.ID, y.ID) })
		return s.remove(idsOf(first(expired, p.Limit))...), nil
	})
}

// TrimEvents: Next is the last id covered when the step was full (more may follow; the
// next step finds out), "" when the step ran out of alarms.
func (s *Store) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	return txv(s, ctx, func() (t ports.Trimmed, _ error) {
		step := first(s.alarms.rows(func(a domain.Alarm) bool { return a.ID > p.After }, byID), p.Alarms)
		if len(step) == p.Alarms && len(step) > 0 {
			t.Next = step[len(step)-1].ID
		}
		for _, a := range step {
			evs, n := s.events[a.ID], len(s.events[a.ID])
			if p.Keep > 0 {
				evs = evs[max(0, n-p.Keep):] // the Keep newest
			}
			s.events[a.ID] = slices.DeleteFunc(evs, func(ev domain.Event) bool { return ev.At.Before(trunc(p.Before)) })
			t.Events += n - len(s.events[a.ID])
		}
		return t, nil
	})
}

func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	return txv(s, ctx, func() ([]domain.Alarm, error) {
		return first(s.alarms.rows(func(a domain.Alarm) bool { return a.ID > after }, byID), limit), nil
	})
}

// ExportEvents walks the events by (alarm id, event id), as a database walks its index
// on them, each with its receipt; the events of a removed alarm went with it, so none is
// orphaned.
func (s *Store) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	return txv(s, ctx, func() ([]domain.Event, error) {
		evs := []domain.Event{}
		for _, id := range slices.Sorted(maps.Keys(s.events)) {
			for _, ev := range s.events[id] {
				if len(evs) < limit && id <= through && (id > after.AlarmID || (id == after.AlarmID && ev.ID > after.ID)) {
					ev.Receipt = keepReceipt(ev.Receipt)
					evs = append(evs, ev)
				}
			}
		}
		return evs, nil
	})
}

func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	return s.do(ctx, func() { s.appendEvents(es...) })
}

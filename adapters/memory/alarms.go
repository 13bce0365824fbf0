package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Create: key check and insert are one transaction, so N concurrent creates with one
// key make one alarm. A database needs a unique index on (owner, idempotency_key), and
// an insert that loses the race to it must read and return the winner, not fail.
func (s *Store) Create(ctx context.Context, a domain.Alarm) (domain.Alarm, bool, error) {
	r, err := txv(s, ctx, func() (ports.CreateResult, error) { r := s.create(a); return r, r.Err })
	return r.Alarm, r.Deduped, err
}

// create is Create inside tx: the key first (a deduped create wins whatever a says),
// then the INSERT into the table and its unique index. The created event is not stored:
// history adds it (domain.CreatedEvent), as the SQL stores do.
func (s *Store) create(a domain.Alarm) ports.CreateResult {
	if id, ok := s.keys[ownerKey{a.Owner, a.IdempotencyKey}]; ok && a.IdempotencyKey != "" {
		return ports.CreateResult{Alarm: out(s.alarms[id]), Deduped: true}
	}
	if _, ok := s.alarms[a.ID]; ok {
		return ports.CreateResult{Err: fmt.Errorf("memory: alarm id %q: %w", a.ID, ports.ErrConflict)}
	}
	a = keep(a)
	s.alarms[a.ID] = a
	if a.IdempotencyKey != "" {
		s.keys[ownerKey{a.Owner, a.IdempotencyKey}] = a.ID
	}
	return ports.CreateResult{Alarm: out(a)}
}

// CreateBatch: a key repeated within the batch dedupes to the first item's alarm,
// because create indexes each key as it goes; an id conflict fails its own item only.
func (s *Store) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	return txv(s, ctx, func() ([]ports.CreateResult, error) {
		res := make([]ports.CreateResult, len(as))
		for i, a := range as {
			res[i] = s.create(a)
		}
		return res, nil
	})
}

// CreateMany rolls back at the first alarm Create would dedupe or refuse: all or nothing.
func (s *Store) CreateMany(ctx context.Context, as []domain.Alarm) error {
	return s.tx(ctx, func() error {
		for i, a := range as {
			if r := s.create(a); r.Err != nil || r.Deduped {
				for _, b := range as[:i] {
					s.remove(b.ID)
				}
				return fmt.Errorf("memory: bulk create: alarm %q (key %q): %w", a.ID, a.IdempotencyKey, ports.ErrConflict)
			}
		}
		return nil
	})
}

// scope says whose alarms find, inside tx, may return: owned by one owner for the
// owner's calls (an unknown id and another owner's are both ErrNotFound, so nothing
// leaks), anyOwner for the operator's. The two share the rest of the code.
type scope func(domain.Alarm) bool

func owned(owner string) scope     { return func(a domain.Alarm) bool { return a.Owner == owner } }
func anyOwner(a domain.Alarm) bool { return true }

func (s *Store) find(id string, in scope) (domain.Alarm, error) {
	if a, ok := s.alarms[id]; ok && in(a) {
		return a, nil
	}
	return domain.Alarm{}, fmt.Errorf("memory: alarm %q: %w", id, ports.ErrNotFound)
}

func (s *Store) Get(ctx context.Context, owner, id string) (domain.Alarm, error) {
	return s.get(ctx, id, owned(owner))
}
func (s *Store) AdminGet(ctx context.Context, id string) (domain.Alarm, error) {
	return s.get(ctx, id, anyOwner)
}
func (s *Store) get(ctx context.Context, id string, in scope) (domain.Alarm, error) {
	return txv(s, ctx, func() (domain.Alarm, error) { a, err := s.find(id, in); return out(a), err })
}

// List walks every id, skipping other owners' alarms: fine in memory, where a database
// walks an index on (owner, id).
func (s *Store) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	return s.page(ctx, f.Cursor, f.Limit, func(a domain.Alarm) bool {
		return a.Owner == owner && (f.Status == "" || a.Status == f.Status)
	})
}

// page returns at most limit alarms that match, newest first from just below the
// cursor's id, with the next page's cursor ("" on the last page), in the one cursor
// format of ports/cursor.go.
func (s *Store) page(ctx context.Context, cursor string, limit int, match func(domain.Alarm) bool) (as []domain.Alarm, next string, err error) {
	after, err := ports.DecodeListCursor(cursor) // a *domain.ValidationError on "cursor"
	if cursor != "" && err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)
	err = s.tx(ctx, func() error {
		as = s.query(func(a domain.Alarm) bool { return (cursor == "" || a.ID < after) && match(a) }, newestFirst)
		if len(as) > limit { // one more matches: there is a next page
			as, next = as[:limit], ports.EncodeListCursor(as[limit-1].ID)
		}
		for i := range as {
			as[i] = out(as[i])
		}
		return nil
	})
	return as, next, err
}

// Mutate reads, decides and writes in one transaction: no claim and no other Mutate
// comes between the read and the write. fn's error comes back as is.
func (s *Store) Mutate(ctx context.Context, owner, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, id, owned(owner), fn)
}
func (s *Store) AdminMutate(ctx context.Context, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, id, anyOwner, fn)
}
func (s *Store) mutate(ctx context.Context, id string, in scope, fn ports.MutateFunc) (domain.Alarm, error) {
	return txv(s, ctx, func() (domain.Alarm, error) {
		a, err := s.find(id, in)
		if err != nil {
			return domain.Alarm{}, err
		}
		t, changed, err := fn(out(a), s.now())
		if err != nil || !changed {
			return out(a), err
		}
		t.Fence = domain.Fence{} // owner actions are unfenced: the transaction is the guard
		s.apply(t)               // never with a Notice: only Decide makes one (ports.AlarmStore.Mutate)
		return out(s.alarms[a.ID]), nil
	})
}

func (s *Store) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return s.history(ctx, id, owned(owner), limit)
}
func (s *Store) AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error) {
	return s.history(ctx, id, anyOwner, limit)
}
func (s *Store) history(ctx context.Context, id string, in scope, limit int) ([]domain.Event, error) {
	if limit <= 0 || limit > ports.MaxEventsLimit {
		limit = ports.MaxEventsLimit
	}
	return txv(s, ctx, func() ([]domain.Event, error) {
		a, err := s.find(id, in)
		if err != nil {
			return nil, err
		}
		evs := s.events[a.ID]
		return domain.WithCreated(slices.Clone(evs[:min(limit, len(evs))]), domain.CreatedEvent(a.ID, a.CreatedAt, a.FireAt), limit), nil
	})
}

// query is "SELECT * FROM alarms WHERE where ORDER BY order". It walks every alarm
// where a database walks an index (the comments say which where it matters).
func (s *Store) query(where func(domain.Alarm) bool, order func(x, y domain.Alarm) int) []domain.Alarm {
	rows := []domain.Alarm{}
	for _, a := range s.alarms {
		if where(a) {
			rows = append(rows, a)
		}
	}
	slices.SortFunc(rows, order)
	return rows
}

// The orders of query: ORDER BY next_fire_at, id; updated_at, id; id; id DESC;
// paused_until, id.
func byDue(x, y domain.Alarm) int       { return stampThenID(x.NextFireAt, y.NextFireAt, x.ID, y.ID) }
func byUpdated(x, y domain.Alarm) int   { return stampThenID(x.UpdatedAt, y.UpdatedAt, x.ID, y.ID) }
func byID(x, y domain.Alarm) int        { return strings.Compare(x.ID, y.ID) }
func newestFirst(x, y domain.Alarm) int { return byID(y, x) }
func byPausedUntil(x, y domain.Alarm) int {
	return stampThenID(x.PausedUntil, y.PausedUntil, x.ID, y.ID)
}

// due is what a claim may take at now, oldest due first: the claim's rule, shared with
// CountAlarms; a database walks an index of active rows by next_fire_at. A lease taken
// at or before now - lease has run its full length, as in SQL "claimed_at <= now - lease".
func (s *Store) due(now time.Time, lease time.Duration) []domain.Alarm {
	expired := trunc(now.Add(-lease))
	return s.query(func(a domain.Alarm) bool {
		return a.Status == domain.StatusActive && !a.NextFireAt.After(now) && (a.ClaimedBy == "" || !a.ClaimedAt.After(expired))
	}, byDue)
}

func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("memory: %w", err)
	}
	return txv(s, ctx, func() (ports.Claimed, error) {
		now := s.now()
		due := s.due(now, p.Lease)
		lease := func(took []domain.Alarm) []domain.Alarm {
			for i, a := range took {
				a.ClaimedBy, a.ClaimedAt = p.Worker, now // now as kept: it is the fence
				s.alarms[a.ID], took[i] = a, out(a)
			}
			return took
		}
		c, err := claims.Choose(p, func() ([]domain.Alarm, error) {
			return lease(due[:min(len(due), p.Batch)]), nil
		}, func(taken *claims.Taken) ([]domain.Alarm, error) {
			return lease(takeFair(due, p.Batch, *p.Fair, taken)), nil
		})
		c.Now = now
		return c, err
	})
}

// holds is the fence of "WHERE claimed_by = ? AND claimed_at = ?": an unclaimed row
// (claimed_by NULL) holds none.
func holds(a domain.Alarm, f domain.Fence) bool {
	return a.ClaimedBy != "" && a.ClaimedBy == f.Worker && a.ClaimedAt.Equal(f.ClaimedAt)
}

// ExtendLease is "UPDATE alarms SET claimed_at = ? WHERE id = ?" fenced as apply is.
func (s *Store) ExtendLease(ctx context.Context, p ports.ExtendLease) (domain.Fence, error) {
	return txv(s, ctx, func() (domain.Fence, error) {
		if a, ok := s.alarms[p.AlarmID]; ok && holds(a, p.Fence) {
			a.ClaimedAt = trunc(s.now().Add(p.For - p.Lease)) // as kept: it is the new fence
			s.alarms[a.ID] = a
			return a.Fence(), nil
		}
		return domain.Fence{}, fmt.Errorf("memory: alarm %q: %w", p.AlarmID, ports.ErrLeaseLost)
	})
}

// Apply inserts the Notice of each transition that applies, as Create would. A notice
// whose id exists fails the batch, checked before anything is written since this store
// cannot roll back (a database's transaction would).
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	return txv(s, ctx, func() (r ports.ApplyResult, _ error) {
		for _, t := range ts {
			if t.Notice == nil || !s.applies(t) {
				continue
			}
			if _, ok := s.alarms[t.Notice.ID]; ok {
				return r, fmt.Errorf("memory: notice of alarm %q: alarm id %q: %w", t.AlarmID, t.Notice.ID, ports.ErrConflict)
			}
		}
		for _, t := range ts {
			if !s.apply(t) {
				r.Stale = append(r.Stale, t.AlarmID)
			} else if t.Notice != nil {
				s.create(*t.Notice)
			}
		}
		r.Applied = len(ts) - len(r.Stale)
		return r, nil
	})
}

// applies reports whether t's UPDATE would match its row.
func (s *Store) applies(t domain.Transition) bool {
	a, ok := s.alarms[t.AlarmID]
	return ok && (t.Fence.IsZero() || holds(a, t.Fence))
}

// apply is "UPDATE ... WHERE id = ? AND claimed_by = ? AND claimed_at = ?" (by id alone
// when unfenced) and, only when the row matched, the INSERT of t's events.
func (s *Store) apply(t domain.Transition) bool {
	if !s.applies(t) {
		return false
	}
	s.alarms[t.AlarmID] = keep(t.ApplyTo(s.alarms[t.AlarmID]))
	s.appendEvents(t.Events)
	return true
}

func (s *Store) NextDue(ctx context.Context) (time.Time, bool, error) {
	unleased, err := txv(s, ctx, func() ([]domain.Alarm, error) {
		return s.query(func(a domain.Alarm) bool { return a.Status == domain.StatusActive && a.ClaimedBy == "" }, byDue), nil
	})
	if err != nil || len(unleased) == 0 {
		return time.Time{}, false, err
	}
	return unleased[0].NextFireAt, true, nil
}

// DuePauses: a database walks an index of the rows that have a paused_until, in its order.
func (s *Store) DuePauses(ctx context.Context, limit int) ([]string, error) {
	return txv(s, ctx, func() ([]string, error) {
		now := s.now()
		due := s.query(func(a domain.Alarm) bool {
			return a.Status == domain.StatusPaused && !a.PausedUntil.IsZero() && !a.PausedUntil.After(now)
		}, byPausedUntil)
		ids := []string{}
		for _, a := range due[:min(len(due), max(limit, 0))] {
			ids = append(ids, a.ID)
		}
		return ids, nil
	})
}

// The operator's side (AdminStore) and retention (RetentionStore).

// AdminList: the label prefix is literal and byte-wise: "%" and "_" are characters (a
// SQL store must not hand it to LIKE unescaped), and "" matches every label.
func (s *Store) AdminList(ctx context.Context, f ports.AdminFilter) ([]domain.Alarm, string, error) {
	since := trunc(f.FailedSince) // compared at the store's precision
	return s.page(ctx, f.Cursor, f.Limit, func(a domain.Alarm) bool {
		return (f.Owner == "" || a.Owner == f.Owner) && (f.Status == "" || a.Status == f.Status) && (f.Kind == "" || a.Kind == f.Kind) &&
			strings.HasPrefix(a.Label, f.LabelPrefix) &&
			(since.IsZero() || (a.Status == domain.StatusFailed && !a.UpdatedAt.Before(since)))
	})
}

// DeleteAlarms deletes leased alarms too: a worker's later outcome is then stale.
func (s *Store) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if len(ids) > ports.MaxDeleteIDs {
		return ports.Deleted{}, &domain.ValidationError{Field: "ids", Message: fmt.Sprintf("%d ids, at most %d may be deleted at once", len(ids), ports.MaxDeleteIDs)}
	}
	return txv(s, ctx, func() (d ports.Deleted, _ error) {
		for _, id := range ids {
			if _, ok := s.alarms[id]; ok {
				d.Alarms, d.Events = d.Alarms+1, d.Events+s.remove(id)
			}
		}
		return d, nil
	})
}

func (s *Store) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	return txv(s, ctx, func() (ports.AlarmCounts, error) {
		c := ports.AlarmCounts{ByStatus: map[domain.Status]int64{}, Now: s.now()}
		for _, st := range domain.Statuses {
			c.ByStatus[st] = 0 // every status, zero included
		}
		for _, a := range s.alarms {
			c.ByStatus[a.Status]++
		}
		if due := s.due(c.Now, lease); len(due) > 0 {
			c.Due, c.OldestDue = int64(len(due)), due[0].NextFireAt
		}
		return c, nil
	})
}

// CountActive walks every alarm; a database walks its (owner, status) index and stops
// after atMost entries (the port promises a cost of what it counts).
func (s *Store) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	return txv(s, ctx, func() (int, error) {
		n := 0
		for _, a := range s.alarms {
			if a.Owner == owner && a.Status.CountsTowardQuota() {
				n++
			}
		}
		return min(n, atMost), nil
	})
}

// DeleteExpiredAlarms walks every alarm; a database needs an index on terminal rows by
// updated_at (the port promises a cost of the rows deleted).
func (s *Store) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	return txv(s, ctx, func() (d ports.Deleted, _ error) {
		expired := s.query(func(a domain.Alarm) bool {
			return a.Status.Terminal() && a.ClaimedBy == "" && a.UpdatedAt.Before(trunc(p.Before))
		}, byUpdated)
		for _, a := range expired[:min(len(expired), max(p.Limit, 0))] {
			d.Alarms, d.Events = d.Alarms+1, d.Events+s.remove(a.ID)
		}
		return d, nil
	})
}

// TrimEvents: Next is the last id covered when the step was full (more may follow; the
// next step finds out), "" when the step ran out of alarms.
func (s *Store) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	return txv(s, ctx, func() (t ports.Trimmed, _ error) {
		step := s.query(func(a domain.Alarm) bool { return a.ID > p.After }, byID)
		step = step[:min(p.Alarms, len(step))]
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

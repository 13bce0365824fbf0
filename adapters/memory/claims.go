package memory

import (
	"context"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// due is what a claim may take at now, oldest due first: the claim's rule, shared with
// CountAlarms; a database walks an index of active rows by next_fire_at. A lease taken
// at or before now - lease has run its full length, as in SQL "claimed_at <= now - lease".
func (s *Store) due(now time.Time, lease time.Duration) []domain.Alarm {
	expired := trunc(now.Add(-lease))
	return s.alarms.rows(func(a domain.Alarm) bool {
		return a.Status == domain.StatusActive && !a.NextFireAt.After(now) && (a.ClaimedBy == "" || !a.ClaimedAt.After(expired))
	}, claims.OldestDueFirst)
}

// ClaimDue chooses (claims.Choose) and leases in one transaction, so two claims never
// take one alarm.
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("memory: %w", err)
	}
	return txv(s, ctx, func() (ports.Claimed, error) {
		now := s.now()
		due := s.due(now, p.Lease)
		c, err := claims.Choose(p, func() ([]domain.Alarm, error) { return first(due, p.Batch), nil },
			func(taken *claims.Taken) ([]domain.Alarm, error) { return takeFair(due, p.Batch, *p.Fair, taken), nil })
		for i, a := range c.Alarms {
			a.ClaimedBy, a.ClaimedAt = p.Worker, now // now as kept: it is the fence
			c.Alarms[i] = s.alarms.put(a)
		}
		c.Now = now
		return c, err
	})
}

// lane is the owner's claim lane: any hash of the owner will do. A database keeps it in
// a generated column and indexes it with next_fire_at over the active rows.
func lane(owner string) int { return int(crc32.ChecksumIEEE([]byte(owner)) % ports.Lanes) }

// takeFair is the fair claim's choice from due (oldest due first): up to f.PerLane of
// each lane from f.Start on, until batch are taken, counted by lane in taken; a database
// probes its lane index once per lane instead.
func takeFair(due []domain.Alarm, batch int, f ports.FairClaim, taken *claims.Taken) []domain.Alarm {
	var lanes [ports.Lanes][]domain.Alarm
	for _, a := range due {
		lanes[lane(a.Owner)] = append(lanes[lane(a.Owner)], a)
	}
	var took []domain.Alarm
	for i := 0; i < ports.Lanes && len(took) < batch; i++ {
		l := claims.Lane(f.Start, i)
		taken[l] = min(len(lanes[l]), f.PerLane, batch-len(took))
		took = append(took, lanes[l][:taken[l]]...)
	}
	return took
}

// holds is the fence of "WHERE claimed_by = ? AND claimed_at = ?": an unclaimed row
// (claimed_by NULL) holds none.
func holds(a domain.Alarm, f domain.Fence) bool {
	return a.ClaimedBy != "" && a.ClaimedBy == f.Worker && a.ClaimedAt.Equal(f.ClaimedAt)
}

// ExtendLease is "UPDATE alarms SET claimed_at = ? WHERE id = ?" fenced as apply is.
func (s *Store) ExtendLease(ctx context.Context, p ports.ExtendLease) (domain.Fence, error) {
	return txv(s, ctx, func() (domain.Fence, error) {
		if a, ok := s.alarms.byKey[p.AlarmID]; ok && holds(a, p.Fence) {
			a.ClaimedAt = s.now().Add(p.For - p.Lease)
			return s.alarms.put(a).Fence(), nil // as kept: it is the new fence
		}
		return domain.Fence{}, fmt.Errorf("memory: alarm %q: %w", p.AlarmID, ports.ErrLeaseLost)
	})
}

// Apply inserts the Notice of each transition that applies, as CreateBatch would. A
// notice whose id exists fails the batch, checked before anything is written since this
// store cannot roll back (a database's transaction would).
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	return txv(s, ctx, func() (r ports.ApplyResult, _ error) {
		for _, t := range ts {
			if t.Notice != nil && s.applies(t) && s.alarms.byKey[t.Notice.ID].ID != "" {
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
	a, ok := s.alarms.byKey[t.AlarmID]
	return ok && (t.Fence.IsZero() || holds(a, t.Fence))
}

// apply is "UPDATE ... WHERE id = ? AND claimed_by = ? AND claimed_at = ?" (by id alone
// when unfenced) and, only when the row matched, the INSERT of t's events.
func (s *Store) apply(t domain.Transition) bool {
	if !s.applies(t) {
		return false
	}
	s.alarms.put(t.ApplyTo(s.alarms.byKey[t.AlarmID]))
	s.appendEvents(t.Events...)
	return true
}

func (s *Store) NextDue(ctx context.Context) (time.Time, bool, error) {
	unleased, err := txv(s, ctx, func() ([]domain.Alarm, error) {
		return s.alarms.rows(func(a domain.Alarm) bool { return a.Status == domain.StatusActive && a.ClaimedBy == "" }, claims.OldestDueFirst), nil
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
		due := s.alarms.rows(func(a domain.Alarm) bool {
			return a.Status == domain.StatusPaused && !a.PausedUntil.IsZero() && !a.PausedUntil.After(now)
		}, func(x, y domain.Alarm) int { return stampThenID(x.PausedUntil, y.PausedUntil, x.ID, y.ID) })
		return idsOf(first(due, limit)), nil
	})
}

// Package owners holds the owner-facing use cases: an owner's alarms (create, with the
// group commit of creates, read, list, update, cancel, pause, resume, trigger, events)
// and the per-node limits on them, the quota of active alarms and the rate limit.
package owners

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AlarmsConfig holds what the owner-facing use cases need to know.
type AlarmsConfig struct {
	Defaults domain.Defaults
	// HintWindow: an alarm created due within this span of now wakes the dispatchers at
	// once (this node's directly, other nodes' through the store when it has hints).
	// Set it to twice the dispatcher tick: an idle dispatcher reads the next due time
	// once a tick but sleeps up to two ticks across a lease sweep (dispatch.Dispatcher's
	// idle), and an alarm due within that must not wait for the read after it.
	HintWindow time.Duration
	// Quota holds every create to its owner's quota of active alarms (NewQuota); nil:
	// none.
	Quota *Quota
	// BulkPerCall is the most alarms one bulk call goes through (0:
	// DefaultBulkPerCall); BulkGate bounds the bulk calls the node runs at once (nil:
	// no bound).
	BulkPerCall int
	BulkGate    *BulkGate
}

// Alarms is the set of owner-facing use cases. Every call is scoped by owner.
type Alarms struct {
	store   Store
	clock   ports.Clock
	hints   *app.Hints
	cfg     AlarmsConfig
	log     *zap.Logger
	creates *createBatcher
}

// NewAlarms builds the use cases. hints may be nil (no local dispatcher to wake).
func NewAlarms(store Store, clock ports.Clock, hints *app.Hints, cfg AlarmsConfig, log *zap.Logger) *Alarms {
	if log == nil {
		log = zap.NewNop()
	}
	return &Alarms{store: store, clock: clock, hints: hints, cfg: cfg, log: log, creates: newCreateBatcher(store)}
}

// Create validates spec and stores a new alarm, or returns the owner's existing alarm
// with the same idempotency key (deduped = true). A spec that replaces its key's alarm
// (domain.OnDuplicateReplace) returns it as replaced, with deduped false: CreateOne
// tells the two apart.
func (s *Alarms) Create(ctx context.Context, spec domain.Spec) (domain.Alarm, bool, error) {
	r, err := s.CreateOne(ctx, spec)
	return r.Alarm, r.Deduped, err
}

// CreateOne is Create with the whole answer: the alarm, and whether it was deduped or
// replaced (debounce). Its Err is always nil: a refusal is the error returned.
func (s *Alarms) CreateOne(ctx context.Context, spec domain.Spec) (CreateResult, error) {
	now := s.clock.Now()
	a, err := domain.NewAlarm(app.NewAlarmID(), spec, now, s.cfg.Defaults)
	if err != nil {
		return CreateResult{}, err
	}
	if a, err = s.excluding(ctx, a, now, nil); err != nil {
		return CreateResult{}, err
	}
	if a.Endpoint != "" {
		if _, err := s.store.GetEndpoint(ctx, a.Owner, a.Endpoint); err != nil {
			return CreateResult{}, noSuchEndpoint(err, a.Owner, a.Endpoint)
		}
	}
	r, err := s.createOne(ctx, a)
	if err != nil {
		return CreateResult{}, err
	}
	if !r.Deduped {
		s.hintIfDueSoon(ctx, r.Alarm.NextFireAt, now)
	}
	return r, nil
}

// MaxBatchCreate is the most alarms one CreateBatch call takes.
const MaxBatchCreate = 1000

// CreateResult is one item's answer of CreateBatch: the alarm and whether it was
// deduped, or the error that refused it (a *domain.ValidationError naming the field, or
// a store error such as ports.ErrConflict).
type CreateResult = ports.CreateResult

// CreateBatch validates every spec on its own and stores the valid ones in one
// transaction, each idempotent on its own key. It returns one result per spec, in
// order; an error of the call itself (no specs, too many, the store failing) means
// nothing was stored.
func (s *Alarms) CreateBatch(ctx context.Context, specs []domain.Spec) ([]CreateResult, error) {
	if len(specs) == 0 || len(specs) > MaxBatchCreate {
		return nil, &domain.ValidationError{Field: "alarms",
			Message: fmt.Sprintf("must hold between 1 and %d alarms, got %d", MaxBatchCreate, len(specs))}
	}
	now := s.clock.Now()
	out := make([]CreateResult, len(specs))
	valid := make([]domain.Alarm, 0, len(specs))
	at := make([]int, 0, len(specs)) // valid[j] is specs[at[j]]
	cals := seenCalendars{}
	for i, spec := range specs {
		a, err := domain.NewAlarm(app.NewAlarmID(), spec, now, s.cfg.Defaults)
		if err == nil {
			a, err = s.excluding(ctx, a, now, cals)
		}
		if isStoreError(err) {
			return nil, err
		}
		if err != nil {
			out[i] = CreateResult{Err: err}
			continue
		}
		valid, at = append(valid, a), append(at, i)
	}
	valid, at, err := s.withEndpoints(ctx, valid, at, out)
	if err != nil {
		return nil, err
	}
	if len(valid) == 0 {
		return out, nil
	}
	reserved, err := s.admitBatch(ctx, valid)
	if err != nil {
		return nil, err
	}
	rs, err := s.store.CreateBatch(ctx, valid)
	reserved.done(rs, err)
	if err != nil {
		return nil, err
	}
	var soonest time.Time
	for j, r := range rs {
		out[at[j]] = r
		if r.Err == nil && !r.Deduped && (soonest.IsZero() || r.Alarm.NextFireAt.Before(soonest)) {
			soonest = r.Alarm.NextFireAt
		}
	}
	if !soonest.IsZero() {
		s.hintIfDueSoon(ctx, soonest, now)
	}
	return out, nil
}

// createOne stores a, validated, within its owner's quota. Concurrent creates share a
// transaction (createBatcher). A replace adds no alarm, so it counts for none.
func (s *Alarms) createOne(ctx context.Context, a domain.Alarm) (CreateResult, error) {
	r, err := s.cfg.Quota.Admit(ctx, a.Owner, 1)
	if err != nil {
		return CreateResult{}, err
	}
	res, err := s.creates.create(ctx, a)
	created := 0
	if (err == nil && !res.Deduped && !res.Replaced) || mayHaveCommitted(err) {
		created = 1
	}
	r.Done(created)
	return res, err
}

// mayHaveCommitted reports whether a create that failed with err may still have
// written: one whose context was cancelled or timed out can have committed with nobody
// left to hear it, so the quota counts it as created. Any other failure wrote nothing.
func mayHaveCommitted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// batchReservations is the room a batch holds in its owners' quotas (a batch from the
// API has one owner; a Go caller's may have several).
type batchReservations map[string]Reservation

// admitBatch reserves room for every alarm of as in its owner's quota, or refuses the
// whole batch: nothing of it is created when any owner's share would cross its quota.
func (s *Alarms) admitBatch(ctx context.Context, as []domain.Alarm) (batchReservations, error) {
	if s.cfg.Quota == nil {
		return nil, nil
	}
	per := map[string]int{}
	for _, a := range as {
		per[a.Owner]++
	}
	held := make(batchReservations, len(per))
	for owner, n := range per {
		r, err := s.cfg.Quota.Admit(ctx, owner, n)
		if err != nil {
			held.done(nil, nil)
			return nil, err
		}
		held[owner] = r
	}
	return held, nil
}

// done ends the reservations with what the store created: each result neither refused
// nor deduped. A call that failed wrote nothing (the port says so), except one whose
// context was cancelled or timed out: like createOne's, its transaction may still have
// committed with nobody left to hear it, so every owner's whole reservation counts as
// created (an estimate too high refuses early until the next count; one too low would
// let the owner past its quota).
func (b batchReservations) done(rs []CreateResult, err error) {
	if b == nil {
		return
	}
	if mayHaveCommitted(err) {
		for _, r := range b {
			r.Done(r.n)
		}
		return
	}
	created := map[string]int{}
	if err == nil {
		for _, r := range rs {
			if r.Err == nil && !r.Deduped && !r.Replaced {
				created[r.Alarm.Owner]++
			}
		}
	}
	for owner, r := range b {
		r.Done(created[owner])
	}
}

// withEndpoints keeps the alarms of valid whose endpoint, if they name one, their owner
// has, and answers the others in out (at[j] is valid[j]'s index there). It reads each
// owner's endpoints once, whatever the number of alarms naming them (a batch from the
// API has one owner), and reads nothing when no alarm names one.
func (s *Alarms) withEndpoints(ctx context.Context, valid []domain.Alarm, at []int, out []CreateResult) ([]domain.Alarm, []int, error) {
	names := map[string]map[string]bool{} // owner -> the names it has
	for _, a := range valid {
		if a.Endpoint == "" || names[a.Owner] != nil {
			continue
		}
		es, err := s.store.ListEndpoints(ctx, a.Owner)
		if err != nil {
			return nil, nil, err
		}
		names[a.Owner] = make(map[string]bool, len(es))
		for _, e := range es {
			names[a.Owner][e.Name] = true
		}
	}
	if len(names) == 0 {
		return valid, at, nil
	}
	kept, keptAt := valid[:0], at[:0]
	for j, a := range valid {
		if a.Endpoint != "" && !names[a.Owner][a.Endpoint] {
			out[at[j]] = CreateResult{Err: noSuchEndpoint(ports.ErrNotFound, a.Owner, a.Endpoint)}
			continue
		}
		kept, keptAt = append(kept, a), append(keptAt, at[j])
	}
	return kept, keptAt, nil
}

// noSuchEndpoint is the refusal of an alarm naming an endpoint its owner does not have
// (err wraps ports.ErrNotFound); any other error of the lookup is returned as it is.
func noSuchEndpoint(err error, owner, name string) error {
	if !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	return &domain.ValidationError{Field: "endpoint",
		Message: fmt.Sprintf("no endpoint named %q for owner %q: an admin registers endpoints (chronos endpoint create)", name, owner)}
}

// HintDue tells the dispatchers that an alarm is due at at, when that is within the
// hint window: this node's at once, the others' through the store where it carries
// hints. An operator's action that makes an alarm due (admin.Config.Hint) calls it.
func (s *Alarms) HintDue(ctx context.Context, at time.Time) { s.hintIfDueSoon(ctx, at, s.clock.Now()) }

func (s *Alarms) hintIfDueSoon(ctx context.Context, at, now time.Time) {
	if at.Sub(now) > s.cfg.HintWindow {
		return
	}
	if s.hints != nil {
		s.hints.Hint(at)
	}
	if s.store.Capabilities().WakeHints {
		// A lost hint only costs latency (the other nodes poll), never a wake.
		if err := s.store.PublishHint(ctx, at); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("publishing wake hint failed", zap.Error(err))
		}
	}
}

// Get returns one of the owner's alarms.
func (s *Alarms) Get(ctx context.Context, owner, id string) (domain.Alarm, error) {
	return s.store.Get(ctx, ports.OwnedBy(owner), id)
}

// List pages through the owner's alarms, newest first: f within the owner's scope,
// whatever scope f carried.
func (s *Alarms) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	f.Scope = ports.OwnedBy(owner)
	return s.store.List(ctx, f)
}

// Events returns an alarm's history, oldest first.
func (s *Alarms) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return s.store.Events(ctx, ports.OwnedBy(owner), id, limit)
}

// Attempts returns a page of an alarm's attempt log, newest first (ports.AttemptsQuery).
func (s *Alarms) Attempts(ctx context.Context, owner, id string, limit int, cursor string) ([]domain.Event, string, error) {
	return s.store.Attempts(ctx, ports.AttemptsQuery{Scope: ports.OwnedBy(owner), AlarmID: id, Limit: limit, Cursor: cursor})
}

// Cancel stops an alarm for good; cancelling a terminal alarm is a no-op.
func (s *Alarms) Cancel(ctx context.Context, owner, id string) (domain.Alarm, error) {
	return s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, changed := domain.Cancel(a, now)
		return t, changed, nil
	})
}

// Pause stops a cron series until Resume; pausing a paused series is a no-op.
func (s *Alarms) Pause(ctx context.Context, owner, id string) (domain.Alarm, error) {
	return s.PauseWith(ctx, owner, id, domain.PauseSpec{})
}

// PauseWith stops a cron series with a note and, when spec.Until is set, until then:
// a dispatcher resumes it at that time (pauseEnds).
func (s *Alarms) PauseWith(ctx context.Context, owner, id string, spec domain.PauseSpec) (domain.Alarm, error) {
	return s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.PauseWith(a, now, spec)
	})
}

// Backfill starts delivering the owner's series' occurrences in the past window [from,
// to] (domain.Backfill): it creates the backfill alarm, or returns the one a repeated
// request made (deduped). count is how many occurrences the window holds, up to the
// series' catch_up_limit + 1.
func (s *Alarms) Backfill(ctx context.Context, owner, id string, from, to time.Time) (b domain.Alarm, count int, deduped bool, err error) {
	series, err := s.store.Get(ctx, ports.OwnedBy(owner), id)
	if err != nil {
		return domain.Alarm{}, 0, false, err
	}
	cals, err := s.calendarsNamed(ctx, owner, series.Series.ExcludeCalendars, nil)
	if err != nil {
		return domain.Alarm{}, 0, false, err
	}
	now := s.clock.Now()
	b, count, err = domain.BackfillExcluding(series, cals, app.NewAlarmID(), from, to, now)
	if err != nil {
		return domain.Alarm{}, 0, false, err
	}
	r, err := s.createOne(ctx, b)
	if err != nil {
		return domain.Alarm{}, 0, false, err
	}
	if !r.Deduped {
		s.hintIfDueSoon(ctx, r.Alarm.NextFireAt, now)
	}
	return r.Alarm, count, r.Deduped, nil
}

// Update changes the owner's alarm's definition in place. A patch that names
// calendars or moves the schedule reads the calendars the series names after it
// (updateExcluding); any other needs none.
func (s *Alarms) Update(ctx context.Context, owner, id string, p domain.Patch) (domain.Alarm, error) {
	var (
		a   domain.Alarm
		err error
	)
	if p.NeedsCalendars() {
		a, err = s.updateExcluding(ctx, owner, id, p)
	} else {
		a, err = s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			return domain.UpdateExcluding(a, p, nil, now)
		})
	}
	if err == nil {
		s.hintIfDueSoon(ctx, a.NextFireAt, s.clock.Now())
	}
	return a, err
}

// SkipNext drops an active series' next occurrence.
func (s *Alarms) SkipNext(ctx context.Context, owner, id string) (domain.Alarm, error) {
	a, err := s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, err := domain.SkipNext(a, now)
		return t, err == nil, err
	})
	if err == nil {
		s.hintIfDueSoon(ctx, a.NextFireAt, s.clock.Now())
	}
	return a, err
}

// Upcoming lists the owner's alarm's next n occurrences as they stand now.
func (s *Alarms) Upcoming(ctx context.Context, owner, id string, n int) (domain.Alarm, []domain.Occurrence, error) {
	a, err := s.store.Get(ctx, ports.OwnedBy(owner), id)
	if err != nil {
		return domain.Alarm{}, nil, err
	}
	cals, err := s.calendarsNamed(ctx, owner, a.Series.ExcludeCalendars, nil)
	if err != nil {
		return domain.Alarm{}, nil, err
	}
	return a, domain.UpcomingExcluding(a, cals, s.clock.Now(), n), nil
}

// Preview lists a schedule's next n occurrences after from (now when zero).
func (s *Alarms) Preview(expr, tz string, from time.Time, n int) ([]time.Time, error) {
	if from.IsZero() {
		from = s.clock.Now()
	}
	return domain.Preview(expr, tz, from, n)
}

// Resume restarts a paused series at its next occurrence.
func (s *Alarms) Resume(ctx context.Context, owner, id string) (domain.Alarm, error) {
	a, err := s.store.Mutate(ctx, ports.OwnedBy(owner), id, domain.Resume)
	if err == nil {
		s.hintIfDueSoon(ctx, a.NextFireAt, s.clock.Now())
	}
	return a, err
}

// Trigger makes an active alarm due now.
func (s *Alarms) Trigger(ctx context.Context, owner, id string) (domain.Alarm, error) {
	a, err := s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, err := domain.Trigger(a, now)
		return t, err == nil, err
	})
	if err == nil {
		s.hintIfDueSoon(ctx, a.NextFireAt, s.clock.Now())
	}
	return a, err
}

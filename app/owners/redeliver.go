package owners

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/internal/bulk"
	"github.com/chronoshq/chronos/app/internal/random"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// RedeliveryConfig is what redeliveries need to know.
type RedeliveryConfig struct {
	// Worker is this node's worker id, recorded on the redelivered event.
	Worker string
	// DeliveryTimeout bounds each wake (the dispatcher's, 10s when 0).
	DeliveryTimeout time.Duration
	// AttemptBodyBytes is how much of an answer's body the attempt log keeps (the
	// dispatcher's; 0 keeps none).
	AttemptBodyBytes int
	// BulkGate bounds the bulk calls the node runs at once, the owners' bulk actions'
	// too (nil: no bound).
	BulkGate *BulkGate
}

// Redeliveries sends past occurrences of an owner's alarms again, through the node's
// waker (its endpoint router: an endpoint's caps and breaker hold for them too).
type Redeliveries struct {
	store Store
	waker ports.Waker
	clock ports.Clock
	cfg   RedeliveryConfig
	log   *zap.Logger
}

// NewRedeliveries builds the use case over the node's waker.
func NewRedeliveries(store Store, waker ports.Waker, clock ports.Clock, cfg RedeliveryConfig, log *zap.Logger) *Redeliveries {
	if cfg.DeliveryTimeout <= 0 {
		cfg.DeliveryTimeout = 10 * time.Second
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Redeliveries{store: store, waker: waker, clock: clock, cfg: cfg, log: log}
}

// Redeliver sends one past occurrence of the owner's alarm id again: the one key
// names, or the latest one delivered (key ""), whatever the alarm's status. The
// receiver gets the occurrence's own key and a redelivery mark; the alarm's history
// gets a redelivered event, and nothing else of the alarm changes. A wake its endpoint
// held back (no room, breaker open) was not sent: nothing is recorded, and the error
// is a domain.LimitError saying when to try again.
func (r *Redeliveries) Redeliver(ctx context.Context, owner, id, key string) (domain.Redelivery, error) {
	scope := ports.OwnedBy(owner)
	a, err := r.store.Get(ctx, scope, id)
	if err != nil {
		return domain.Redelivery{}, err
	}
	return r.redeliver(ctx, scope, a, key)
}

func (r *Redeliveries) redeliver(ctx context.Context, scope ports.Scope, a domain.Alarm, key string) (domain.Redelivery, error) {
	history, err := r.history(ctx, scope, a.ID)
	if err != nil {
		return domain.Redelivery{}, err
	}
	at, attempt, err := domain.RedeliveryTarget(a, history, key)
	if err != nil {
		return domain.Redelivery{}, err
	}
	now := r.clock.Now()
	w := domain.RedeliveryWake(a, at, attempt, now)
	if parent, ok := domain.ParseTraceParent(w.TraceParent); ok {
		w.TraceParent = domain.ChildTraceParent(parent, random.SpanID()) // this wake's own span
	} else {
		w.TraceParent, w.TraceState = "", ""
	}
	out, err := r.wake(ctx, w)
	if err != nil {
		return domain.Redelivery{}, err
	}
	// Recorded even when the caller has gone: the wake was sent.
	rec := context.WithoutCancel(ctx)
	if _, err := r.store.Mutate(rec, scope, a.ID, func(cur domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Redelivered(cur, at, attempt, r.cfg.Worker, out, now), true, nil
	}); err != nil {
		return domain.Redelivery{}, fmt.Errorf("owners: the redelivery of %s was sent but recording it failed: %w", w.OccurrenceKey, err)
	}
	return domain.Redelivery{AlarmID: a.ID, OccurrenceKey: w.OccurrenceKey, ScheduledFor: at, Attempt: attempt, At: now,
		Delivered: out.Delivered, Error: out.Error}, nil
}

// history is what a redelivery looks for its occurrence in: the newest attempts (the
// attempt log, newest first, so the latest is found however long the history) and the
// history from its start (events written before the attempt log carry no receipt, so
// only they show an older alarm's deliveries).
func (r *Redeliveries) history(ctx context.Context, scope ports.Scope, id string) ([]domain.Event, error) {
	newest, _, err := r.store.Attempts(ctx, ports.AttemptsQuery{Scope: scope, AlarmID: id, Limit: ports.MaxAttemptsLimit})
	if err != nil {
		return nil, err
	}
	oldest, err := r.store.Events(ctx, scope, id, 0)
	if err != nil {
		return nil, err
	}
	return append(newest, oldest...), nil
}

// wake sends w under the delivery timeout, to its end even when the caller goes away
// meanwhile (a wake cut off mid-way may have arrived, and must be recorded). A
// receiver's refusal is an outcome, with the attempt log's receipt as the dispatcher
// keeps it; only a wake held back before it was sent is an error.
func (r *Redeliveries) wake(ctx context.Context, w domain.Wake) (domain.Outcome, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.DeliveryTimeout)
	defer cancel()
	began := time.Now()
	resp, err := ports.WakeFor(wctx, r.waker, w)
	rc := resp.Receipt(time.Since(began), r.cfg.AttemptBodyBytes)
	var held ports.Deferral
	switch {
	case err == nil:
		o := domain.Delivered()
		o.Receipt = &rc
		return o, nil
	case errors.As(err, &held):
		return domain.Outcome{}, &domain.LimitError{Kind: domain.ErrRateLimited, RetryAfter: held.DeferFor(),
			Message: "the redelivery was not sent: " + held.Error()}
	default:
		o := domain.DeliveryFailed(err.Error())
		o.Receipt = &rc
		return o, nil
	}
}

// RedeliverFailed redelivers the latest occurrence of each of the owner's alarms that
// f matches (by default status failed; since narrows it to alarms failed at or after
// it), newest first, at most limit of them, bulk.Workers at a time, and returns a
// cursor to go on with: the owner's dead-letter queue, emptied in bounded calls. One
// bulk call per owner runs at a time (ErrBulkRunning), and each takes a place in
// BulkGate. An alarm never delivered, or a failure notice, is skipped, not counted.
func (r *Redeliveries) RedeliverFailed(ctx context.Context, owner string, f ports.ListFilter, limit int) (domain.BulkRedelivery, error) {
	var res domain.BulkRedelivery
	switch {
	case limit == 0:
		limit = domain.DefaultRedeliverLimit
	case limit < 0 || limit > domain.MaxRedeliverLimit:
		return res, &domain.ValidationError{Field: "limit", Message: fmt.Sprintf("must be between 1 and %d, got %d", domain.MaxRedeliverLimit, limit)}
	}
	if f.Status == "" {
		f.Status = domain.StatusFailed
	}
	if !slices.Contains(domain.Statuses, f.Status) {
		return res, &domain.ValidationError{Field: "filter.status", Message: fmt.Sprintf("must be one of %v, got %q", domain.Statuses, f.Status)}
	}
	if f.Kind != "" {
		return res, &domain.ValidationError{Field: "filter", Message: "a redelivery filters by status, since, tag and label_prefix only"}
	}
	if !f.FailedSince.IsZero() && f.Status != domain.StatusFailed {
		return res, &domain.ValidationError{Field: "filter.since", Message: "since selects failed alarms: use it with status failed"}
	}
	f.Scope = ports.OwnedBy(owner)
	leave, err := r.cfg.BulkGate.enter(owner, false)
	if err != nil {
		return res, err
	}
	defer leave()
	err = underBulkLease(ctx, r.store, r.log, owner, func(renew func() error) error {
		var err error
		res.Matched, res.NextCursor, err = bulk.WalkFrom(ctx, r.store, f, limit, func(page []domain.Alarm) error {
			if err := r.redeliverPage(ctx, f.Scope, page, &res); err != nil {
				return err
			}
			return renew()
		})
		return err
	})
	r.log.Info("owner bulk redelivery", zap.String("owner", owner), zap.Int("matched", res.Matched),
		zap.Int("delivered", res.Delivered), zap.Int("failed", res.Failed), zap.Int("held_back", res.HeldBack), zap.Error(err))
	return res, err
}

// redeliverPage redelivers the latest occurrence of each alarm of page, a few at a
// time. A store failure stops the call: the ones sent are counted, and the error says
// the rest were not.
func (r *Redeliveries) redeliverPage(ctx context.Context, scope ports.Scope, page []domain.Alarm, res *domain.BulkRedelivery) error {
	var mu sync.Mutex
	return bulk.Each(ctx, page, func(a domain.Alarm) error {
		got, err := r.redeliver(ctx, scope, a, "")
		var limited *domain.LimitError
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil && got.Delivered:
			res.Delivered++
		case err == nil:
			res.Failed++
		case errors.As(err, &limited):
			res.HeldBack++
		case errors.Is(err, domain.ErrInvalidState), errors.Is(err, ports.ErrNotFound):
			// never delivered, a failure notice, or deleted since the page was read
		default:
			return err
		}
		return nil
	})
}

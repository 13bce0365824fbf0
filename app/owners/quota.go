package owners

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// DefaultQuotaRefresh is how old an owner's count may get before a create counts again:
// the bound on how long room freed elsewhere goes unseen, and on how long other nodes'
// creates do (docs/reliability.md, "Quotas and rate limits"). A large owner's count is
// renewed less often (quotaCountShare).
const DefaultQuotaRefresh = 2 * time.Second

// quotaCountShare: a count is renewed no sooner than this many times its own duration,
// whatever the refresh interval, so the counts of one owner take at most 1/20 of one
// database connection's time per node (figures: docs/reliability.md).
const quotaCountShare = 20

// QuotaConfig configures NewQuota.
type QuotaConfig struct {
	// MaxActivePerOwner is the most alarms an owner may have in domain.QuotaStatuses
	// (active or paused); 0 or less: no quota (NewQuota returns nil).
	MaxActivePerOwner int
	// Refresh is how old an owner's count may get before the next create starts a new
	// count (in the background); 0: DefaultQuotaRefresh.
	Refresh time.Duration
	// Clock measures the age of counts; nil: the process's monotonic clock.
	Clock   ports.Clock
	Metrics ports.Metrics // refusals; nil: none
	Log     *zap.Logger   // failed counts; nil: none
}

// Quota holds each owner's creates to its quota of active alarms without a query per
// create. Per owner it keeps the store's last count (ports.QuotaStore.CountActive, at
// most the quota's worth of index entries) and what this node created since that count
// began, and counts again, in the background, when a create finds the count older than
// Refresh. A create is admitted when that estimate plus the create's alarms fits.
//
// What that promises (docs/reliability.md), where a count's age limit is Refresh, or 20
// times the count's own duration when that is longer (quotaCountShare): on one node an
// owner never ends over its quota (this node's own creates, in flight or done, are
// always in the estimate, so the estimate is never below the truth); on N nodes each
// node sees the others' creates only through its counts, so an owner can end over by at
// most what the other nodes created for it during one age limit plus one count. Room
// freed elsewhere (a cancel, a fire) shows within one age limit: a create that would be
// refused on an older count waits for a fresh count first, and is refused only on that.
//
// A nil *Quota admits everything: no quota.
type Quota struct {
	store   ports.QuotaStore
	limit   int
	refresh time.Duration
	clock   ports.Clock
	metrics ports.Metrics
	log     *zap.Logger

	mu        sync.Mutex
	owners    map[string]*ownerCount
	lastSweep time.Time
}

// ownerCount is one owner's estimate. Guarded by Quota.mu.
type ownerCount struct {
	known   bool          // a count has succeeded
	base    int           // the store's count (at most the limit)...
	counted time.Time     // ...as of when that count began
	took    time.Duration // how long that count took
	added   int           // alarms this node created (or may have) since counted
	pending int           // alarms admitted and not yet answered by the store
	used    time.Time     // the last Admit, for eviction

	refreshing chan struct{} // closed when the running count ends; nil when none runs
	err        error         // the last count's error, for those who waited on it
	failed     time.Time     // when a count last failed: the next background one waits a Refresh
}

// quotaCountTimeout bounds one count; it runs detached from any request, since several
// may wait on it.
const quotaCountTimeout = 30 * time.Second

// quotaIdle: an owner that has not created for this long is forgotten at the next
// sweep, so the map holds only owners that created recently. Its next create counts
// first (one bounded query, at most once a minute for an owner this quiet).
const quotaIdle = time.Minute

// NewQuota returns the quota of cfg over store, or nil when cfg sets none.
func NewQuota(store ports.QuotaStore, cfg QuotaConfig) *Quota {
	if cfg.MaxActivePerOwner <= 0 {
		return nil
	}
	q := &Quota{store: store, limit: cfg.MaxActivePerOwner, refresh: cfg.Refresh, clock: cfg.Clock,
		metrics: cfg.Metrics, log: cfg.Log, owners: map[string]*ownerCount{}}
	if q.refresh <= 0 {
		q.refresh = DefaultQuotaRefresh
	}
	if q.clock == nil {
		q.clock = monotonicClock{}
	}
	if q.metrics == nil {
		q.metrics = ports.NopMetrics{}
	}
	if q.log == nil {
		q.log = zap.NewNop()
	}
	return q
}

// monotonicClock is the process clock with its monotonic reading, which ages are
// measured on (ports.SystemClock's UTC() drops it).
type monotonicClock struct{}

func (monotonicClock) Now() time.Time { return time.Now() }

// Reservation is room admitted for a create; Done says how it ended. The zero value (no
// quota) does nothing.
type Reservation struct {
	q *Quota
	e *ownerCount
	n int
}

// Done ends the reservation: created is how many of its alarms the store created, or
// may have (count a create whose answer was lost, e.g. to a cancelled context, as
// created: an estimate too high only refuses early, until the next count).
func (r Reservation) Done(created int) {
	if r.e == nil {
		return
	}
	r.q.mu.Lock()
	r.e.pending -= r.n
	r.e.added += created
	r.q.mu.Unlock()
}

// Admit reserves room for n new alarms of owner, or refuses with a *domain.LimitError
// (domain.ErrQuotaExceeded) whose RetryAfter is when a new count may show room. It
// queries the store only for an owner it has no count of, or to check a refusal on a
// count older than the refresh interval; otherwise a count that has aged is renewed in
// the background. An error of that query is returned as is. n larger than the whole
// quota is refused at once, Permanent, without a count: no count can make it fit.
func (q *Quota) Admit(ctx context.Context, owner string, n int) (Reservation, error) {
	if q == nil || n <= 0 {
		return Reservation{}, nil
	}
	if n > q.limit {
		q.metrics.Refused(ports.RefusedQuota)
		return Reservation{}, domain.CheckQuota(q.limit, 0, n)
	}
	waited := false
	for {
		now := q.clock.Now()
		q.mu.Lock()
		q.sweep(now)
		e := q.owners[owner]
		if e == nil {
			e = &ownerCount{}
			q.owners[owner] = e
		}
		e.used = now
		if e.known {
			fresh := e.counted.Add(q.maxAge(e))
			stale := !now.Before(fresh)
			refusal := domain.CheckQuota(q.limit, e.base+e.added+e.pending, n)
			if refusal == nil {
				e.pending += n
				if stale && e.refreshing == nil && now.Sub(e.failed) >= q.maxAge(e) {
					q.count(owner, e, now)
				}
				q.mu.Unlock()
				return Reservation{q: q, e: e, n: n}, nil
			}
			if !stale || waited {
				retry := fresh.Sub(now)
				q.mu.Unlock()
				q.metrics.Refused(ports.RefusedQuota)
				var le *domain.LimitError
				if errors.As(refusal, &le) {
					le.RetryAfter = max(retry, time.Second)
				}
				return Reservation{}, refusal
			}
		}
		done := e.refreshing
		if done == nil {
			done = q.count(owner, e, now)
		}
		q.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return Reservation{}, ctx.Err()
		}
		q.mu.Lock()
		err := e.err
		q.mu.Unlock()
		if err != nil {
			return Reservation{}, err
		}
		waited = true
	}
}

// count starts counting owner's alarms in the background and returns a channel closed
// when the count has ended. Called with q.mu held and no count running for e.
//
// The new base is the store's count as of about now; of the alarms this node created,
// those done before now are in it and are dropped from added, and those that finish
// later stay in added (or pending) even if the count saw them: counted twice, an
// overestimate, never an underestimate.
func (q *Quota) count(owner string, e *ownerCount, now time.Time) chan struct{} {
	done := make(chan struct{})
	e.refreshing = done
	addedBefore := e.added
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), quotaCountTimeout)
		n, err := q.store.CountActive(ctx, owner, q.limit)
		cancel()
		took := q.clock.Now().Sub(now)
		q.mu.Lock()
		defer q.mu.Unlock()
		e.refreshing, e.err = nil, err
		if err != nil {
			e.failed = q.clock.Now()
			q.log.Warn("counting an owner's active alarms for its quota failed; the last count stands", zap.Error(err))
			return
		}
		e.known, e.base, e.counted, e.took = true, n, now, took
		e.added -= addedBefore
	}()
	return done
}

// maxAge is how old e's count may get: the refresh interval, or quotaCountShare times
// the count's own duration when that is longer. Called with q.mu held.
func (q *Quota) maxAge(e *ownerCount) time.Duration {
	return max(q.refresh, quotaCountShare*e.took)
}

// sweep forgets owners idle for quotaIdle, at most once per quotaIdle. Called with q.mu
// held. An owner with creates in flight or a count running stays.
func (q *Quota) sweep(now time.Time) {
	if now.Sub(q.lastSweep) < quotaIdle {
		return
	}
	q.lastSweep = now
	for owner, e := range q.owners {
		if e.pending == 0 && e.refreshing == nil && now.Sub(e.used) >= quotaIdle {
			delete(q.owners, owner)
		}
	}
}

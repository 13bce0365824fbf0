package contract

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var mutateCases = []testCase{
	{"SeesRowAndNow", testMutateSeesRowAndNow},
	{"Cancel", testMutateCancel},
	{"PauseResumeTrigger", testMutatePauseResumeTrigger},
	{"UnchangedWritesNothing", testMutateUnchangedWritesNothing},
	{"ErrorReturnedAsIs", testMutateErrorReturnedAsIs},
	{"ReleasesLease", testMutateReleasesLease},
	{"ConcurrentSerialize", testMutateConcurrentSerialize},
}

// recorder wraps a MutateFunc and keeps what its last call saw and decided. A store
// may call fn more than once (when it retries its transaction); the last call is the
// one whose transition was applied.
type recorder struct {
	mu    sync.Mutex
	fn    ports.MutateFunc
	calls int
	seen  domain.Alarm
	now   time.Time
	tr    domain.Transition
}

func record(fn ports.MutateFunc) *recorder { return &recorder{fn: fn} }

func (r *recorder) call(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	tr, changed, err := r.fn(a, now)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	r.seen, r.now, r.tr = a, now, tr
	return tr, changed, err
}

// mutateApplied runs fn through Mutate and checks that the result and the stored row
// are the transition fn decided, applied to the row fn saw. It returns that transition.
func (e *env) mutateApplied(owner, id string, fn ports.MutateFunc) domain.Transition {
	e.t.Helper()
	r := record(fn)
	got := e.mutate(owner, id, r.call)
	if r.calls == 0 {
		e.t.Fatal("Mutate did not call fn")
	}
	want := r.tr.ApplyTo(r.seen)
	e.wantAlarm(fmt.Sprintf("Mutate(%s) result", r.tr.Kind), got, want)
	e.wantStored(fmt.Sprintf("after Mutate(%s)", r.tr.Kind), want)
	return r.tr
}

// fn sees the row as stored (lease included) and the store's now, which is the clock.
func testMutateSeesRowAndNow(t *testing.T, e *env) {
	a := e.createDue(alice)
	claimed := e.claimOnly("w1", longLease, a.ID)
	e.clock.Advance(3 * time.Second)

	r := record(func(domain.Alarm, time.Time) (domain.Transition, bool, error) {
		return domain.Transition{}, false, nil
	})
	got := e.mutate(alice, claimed.ID, r.call)
	e.wantAlarm("the alarm fn saw", r.seen, claimed)
	e.sameLease("the alarm fn saw", r.seen, claimed)
	e.wantTime("the now fn saw", r.now, e.now())
	e.wantAlarm("Mutate result when unchanged", got, claimed)
}

// Cancel is idempotent: the first writes the row and one event, a second (on the now
// terminal alarm) writes neither.
func testMutateCancel(t *testing.T, e *env) {
	a := e.create(e.onceIn(alice, time.Hour))
	e.clock.Advance(time.Second)
	tr := e.mutateApplied(alice, a.ID, cancelFn)
	if got := e.get(alice, a.ID); got.Status != domain.StatusCancelled {
		t.Errorf("status after cancel = %s, want cancelled", got.Status)
	}
	before := e.get(alice, a.ID)

	e.clock.Advance(time.Second)
	again := e.mutate(alice, a.ID, cancelFn)
	e.wantAlarm("second cancel result", again, before)
	e.wantStored("after a second cancel", before)
	e.wantEvents("events", e.events(alice, a.ID), a, tr.Events...)
}

// Pause, resume and trigger each write exactly what the domain decided, and their
// events, in order.
func testMutatePauseResumeTrigger(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "0 */2 * * *", "America/New_York"))
	var trs []domain.Transition

	e.clock.Advance(time.Minute)
	trs = append(trs, e.mutateApplied(alice, a.ID, pauseFn))
	e.clock.Advance(5 * time.Hour) // occurrences pass while paused
	trs = append(trs, e.mutateApplied(alice, a.ID, resumeFn))
	if got := e.get(alice, a.ID); !got.NextFireAt.After(e.now()) {
		t.Errorf("after resume next_fire_at = %s, want after now %s", fmtTime(got.NextFireAt), fmtTime(e.now()))
	}
	e.clock.Advance(time.Minute)
	trs = append(trs, e.mutateApplied(alice, a.ID, triggerFn))
	e.wantTime("next_fire_at after trigger", e.get(alice, a.ID).NextFireAt, e.now())
	e.clock.Advance(time.Minute)
	trs = append(trs, e.mutateApplied(alice, a.ID, cancelFn))

	e.wantEvents("events", e.events(alice, a.ID), a, eventsOf(trs...)...)
}

// changed=false commits nothing, even when fn returned a transition.
func testMutateUnchangedWritesNothing(t *testing.T, e *env) {
	a := e.create(e.onceIn(alice, time.Hour))
	e.clock.Advance(time.Minute)
	got := e.mutate(alice, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, _ := domain.Cancel(a, now)
		return tr, false, nil
	})
	e.wantAlarm("Mutate result", got, a)
	e.wantStored("after an unchanged Mutate", a)
	e.wantEvents("events", e.events(alice, a.ID), a)
}

// An error from fn comes back as is (errors.Is works) and nothing is written.
var errRefused = errors.New("contract: refused by fn")

func testMutateErrorReturnedAsIs(t *testing.T, e *env) {
	a := e.create(e.onceIn(alice, time.Hour))
	e.clock.Advance(time.Minute)

	_, err := e.store.Mutate(e.ctx, ports.OwnedBy(alice), a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, _ := domain.Cancel(a, now)
		return tr, true, fmt.Errorf("checking %s: %w", a.ID, errRefused)
	})
	wantErr(t, "Mutate with a failing fn", err, errRefused)

	// A domain refusal: pausing a once alarm.
	_, err = e.store.Mutate(e.ctx, ports.OwnedBy(alice), a.ID, pauseFn)
	wantErr(t, "Mutate(pause) of a once alarm", err, domain.ErrInvalidState)

	e.wantStored("after failed Mutates", a)
	e.wantEvents("events", e.events(alice, a.ID), a)
}

// An owner action releases a worker's lease: after a trigger, another worker can
// claim the alarm at once, and the first worker's outcome is stale.
func testMutateReleasesLease(t *testing.T, e *env) {
	a := e.createDue(alice)
	held := e.claimOnly("w1", longLease, a.ID)
	e.clock.Advance(time.Second)
	e.mutateApplied(alice, a.ID, triggerFn)
	if got := e.get(alice, a.ID); got.ClaimedBy != "" || !got.ClaimedAt.IsZero() {
		t.Errorf("after trigger lease = (%q, %s), want released", got.ClaimedBy, fmtTime(got.ClaimedAt))
	}
	e.claimOnly("w2", longLease, a.ID)
	e.applyStale([]domain.Transition{e.fire(held)}, a.ID)
}

// Concurrent Mutates on one alarm serialise: each sees the previous one's write, so n
// counting transitions leave a count of n and n events, none lost.
func testMutateConcurrentSerialize(t *testing.T, e *env) {
	const n = 10
	s := e.onceIn(alice, time.Hour)
	s.MaxFailures = domain.MaxMaxFailures
	a := e.create(s)

	count := func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		next := a.FailureCount + 1
		return domain.Transition{
			Kind:         domain.TransitionTriggered,
			AlarmID:      a.ID,
			Status:       a.Status,
			NextFireAt:   a.NextFireAt,
			ScheduledFor: a.ScheduledFor,
			FailureCount: next,
			LastError:    fmt.Sprintf("count %d", next),
			LastFiredAt:  a.LastFiredAt,
			UpdatedAt:    now,
			Events: []domain.Event{{
				AlarmID: a.ID, Type: domain.EventTriggered, At: now, Message: fmt.Sprintf("count %d", next),
			}},
		}, true, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.store.Mutate(e.ctx, ports.OwnedBy(alice), a.ID, count); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Mutate: %v", err)
	}

	got := e.get(alice, a.ID)
	if got.FailureCount != n || got.LastError != fmt.Sprintf("count %d", n) {
		t.Errorf("after %d concurrent counting Mutates: count %d (%q), want %d: updates were lost", n, got.FailureCount, got.LastError, n)
	}
	evs := e.events(alice, a.ID)
	if len(evs) != n+1 {
		t.Fatalf("%d events, want %d", len(evs), n+1)
	}
	for i, ev := range evs[1:] {
		if want := fmt.Sprintf("count %d", i+1); ev.Message != want {
			t.Errorf("event %d message = %q, want %q", i+1, ev.Message, want)
		}
	}
}

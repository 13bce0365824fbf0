package contract

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// epoch is where every ManualClock starts. Its nanoseconds are deliberately not a
// multiple of any store's precision, so every case also checks that a store hands back
// times exactly as it keeps them (a lease returned by ClaimDue must fence the row).
var epoch = time.Date(2031, time.March, 4, 5, 6, 7, 123456789, time.UTC)

// Owners used across the suite; each subtest has its own database, so fixed names do.
const (
	alice = "alice"
	bob   = "bob"
)

// Lease lengths used by the claim cases.
const (
	shortLease = time.Minute
	longLease  = time.Hour
)

// defaults are the create-time defaults the suite's alarms are built with.
var defaults = domain.Defaults{MaxFailures: 5}

// policy is the retry policy the suite decides outcomes with.
var policy = domain.Policy{Backoff: domain.DefaultBackoff}

// env is one subtest's store, clock and context, with helpers that fail the test on
// unexpected errors so the cases read as the behaviour they check.
type env struct {
	t       *testing.T
	ctx     context.Context
	harness Harness
	store   ports.Store
	clock   *ManualClock
	caps    ports.Capabilities
}

// newEnv opens a fresh store for t.
func newEnv(t *testing.T, newHarness NewHarness) *env {
	t.Helper()
	h := newHarness(t)
	clock := NewManualClock(epoch)
	s := h.NewStore(t, clock)
	if s == nil {
		t.Fatal("harness returned a nil store")
	}
	return &env{t: t, ctx: t.Context(), harness: h, store: s, clock: clock, caps: s.Capabilities()}
}

func (e *env) now() time.Time { return e.clock.Now() }

// --- building and creating alarms ---

// onceIn is the spec of a once alarm due d after the clock's now (d may be 0 or negative).
func (e *env) onceIn(owner string, d time.Duration) domain.Spec {
	at := e.now().Add(d)
	return domain.Spec{Owner: owner, Kind: domain.KindOnce, FireAt: &at, Label: "once"}
}

// cronSpec is the spec of a cron alarm.
func cronSpec(owner, expr, tz string) domain.Spec {
	return domain.Spec{Owner: owner, Kind: domain.KindCron, CronExpr: expr, Timezone: tz, Label: "cron"}
}

// build validates s into a new alarm with a fresh id, created at the clock's now.
func (e *env) build(s domain.Spec) domain.Alarm {
	e.t.Helper()
	a, err := domain.NewAlarm(newID(), s, e.now(), defaults)
	if err != nil {
		e.t.Fatalf("domain.NewAlarm: %v", err)
	}
	return a
}

// CreateOne creates a alone, with CreateBatch, as a single create: the call's error or
// the item's. Tests of a store outside the suite use it too.
func CreateOne(ctx context.Context, s ports.AlarmStore, a domain.Alarm) (domain.Alarm, bool, error) {
	res, err := s.CreateBatch(ctx, []domain.Alarm{a})
	if err != nil {
		return domain.Alarm{}, false, err
	}
	if len(res) != 1 {
		return domain.Alarm{}, false, fmt.Errorf("CreateBatch of one alarm: %d results", len(res))
	}
	return res[0].Alarm, res[0].Deduped, res[0].Err
}

// insert stores a and fails unless it was created (not deduped).
func (e *env) insert(a domain.Alarm) domain.Alarm {
	e.t.Helper()
	stored, deduped, err := CreateOne(e.ctx, e.store, a)
	if err != nil {
		e.t.Fatalf("Create(%s): %v", a.ID, err)
	}
	if deduped {
		e.t.Fatalf("Create(%s): deduped = true for an alarm without a previous twin", a.ID)
	}
	return stored
}

// create builds and inserts an alarm from s.
func (e *env) create(s domain.Spec) domain.Alarm {
	e.t.Helper()
	return e.insert(e.build(s))
}

// createDue creates a once alarm of owner that is due now.
func (e *env) createDue(owner string) domain.Alarm {
	e.t.Helper()
	return e.create(e.onceIn(owner, 0))
}

// --- reading ---

func (e *env) get(owner, id string) domain.Alarm {
	e.t.Helper()
	a, err := e.store.Get(e.ctx, ports.OwnedBy(owner), id)
	if err != nil {
		e.t.Fatalf("Get(%s, %s): %v", owner, id, err)
	}
	return a
}

func (e *env) events(owner, id string) []domain.Event {
	e.t.Helper()
	evs, err := e.store.Events(e.ctx, ports.OwnedBy(owner), id, 0)
	if err != nil {
		e.t.Fatalf("Events(%s, %s): %v", owner, id, err)
	}
	return evs
}

// list is a page of the owner's alarms: f with the owner's scope.
func (e *env) list(owner string, f ports.ListFilter) ([]domain.Alarm, string) {
	e.t.Helper()
	f.Scope = ports.OwnedBy(owner)
	as, next, err := e.store.List(e.ctx, f)
	if err != nil {
		e.t.Fatalf("List(%s, %+v): %v", owner, f, err)
	}
	return as, next
}

// listAll walks every page of the owner's alarms with the given page size and filter:
// owner pages, each full but the last.
func (e *env) listAll(owner string, status domain.Status, limit int) []domain.Alarm {
	e.t.Helper()
	size := limit
	if size <= 0 {
		size = ports.DefaultListLimit
	}
	size = min(size, ports.MaxListLimit)
	var all []domain.Alarm
	cursor := ""
	for page := 0; ; page++ {
		if page > 10000 {
			e.t.Fatal("List never returned an empty cursor")
		}
		as, next := e.list(owner, ports.ListFilter{Status: status, Limit: limit, Cursor: cursor})
		all = append(all, as...)
		if next == "" {
			return all
		}
		if len(as) != size {
			e.t.Fatalf("an owner page of %d alarms (limit %d) with a cursor %q; want it full", len(as), limit, next)
		}
		cursor = next
	}
}

// --- claiming and applying ---

func (e *env) claim(worker string, lease time.Duration, batch int) ports.Claimed {
	e.t.Helper()
	c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: worker, Lease: lease, Batch: batch})
	if err != nil {
		e.t.Fatalf("ClaimDue(%s): %v", worker, err)
	}
	return c
}

// claimOnly claims and expects exactly the alarm id.
func (e *env) claimOnly(worker string, lease time.Duration, id string) domain.Alarm {
	e.t.Helper()
	c := e.claim(worker, lease, 100)
	if len(c.Alarms) != 1 || c.Alarms[0].ID != id {
		e.t.Fatalf("ClaimDue(%s) = %v, want exactly [%s]", worker, alarmIDs(c.Alarms), id)
	}
	return c.Alarms[0]
}

// claimNone expects a claim to find nothing.
func (e *env) claimNone(worker string, lease time.Duration) {
	e.t.Helper()
	if c := e.claim(worker, lease, 100); len(c.Alarms) != 0 {
		e.t.Fatalf("ClaimDue(%s) = %v, want nothing", worker, alarmIDs(c.Alarms))
	}
}

func (e *env) apply(ts ...domain.Transition) ports.ApplyResult {
	e.t.Helper()
	r, err := e.store.Apply(e.ctx, ts)
	if err != nil {
		e.t.Fatalf("Apply: %v", err)
	}
	return r
}

// applyOK applies ts and expects every one of them applied.
func (e *env) applyOK(ts ...domain.Transition) {
	e.t.Helper()
	r := e.apply(ts...)
	if r.Applied != len(ts) || len(r.Stale) != 0 {
		e.t.Fatalf("Apply of %d transitions = {Applied: %d, Stale: %v}, want all applied", len(ts), r.Applied, r.Stale)
	}
}

// applyStale applies ts and expects exactly the given ids to be reported stale.
func (e *env) applyStale(ts []domain.Transition, stale ...string) {
	e.t.Helper()
	r := e.apply(ts...)
	if r.Applied != len(ts)-len(stale) || !sameIDSet(r.Stale, stale) {
		e.t.Fatalf("Apply = {Applied: %d, Stale: %v}, want {Applied: %d, Stale: %v}", r.Applied, r.Stale, len(ts)-len(stale), stale)
	}
}

// fire decides a delivered outcome for a claimed at-least-once alarm, at the clock's now.
func (e *env) fire(claimed domain.Alarm) domain.Transition {
	return domain.Decide(domain.Begin(claimed, e.now(), policy), domain.Delivered(), e.now(), policy)
}

// fail decides a failed outcome for a claimed at-least-once alarm, at the clock's now.
func (e *env) fail(claimed domain.Alarm, msg string) domain.Transition {
	return domain.Decide(domain.Begin(claimed, e.now(), policy), domain.DeliveryFailed(msg), e.now(), policy)
}

// --- owner actions through Mutate ---

func cancelFn(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	t, changed := domain.Cancel(a, now)
	return t, changed, nil
}

func pauseFn(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	return domain.Pause(a, now)
}

func resumeFn(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	return domain.Resume(a, now)
}

func triggerFn(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	t, err := domain.Trigger(a, now)
	return t, err == nil, err
}

func (e *env) mutate(owner, id string, fn ports.MutateFunc) domain.Alarm {
	e.t.Helper()
	a, err := e.store.Mutate(e.ctx, ports.OwnedBy(owner), id, fn)
	if err != nil {
		e.t.Fatalf("Mutate(%s, %s): %v", owner, id, err)
	}
	return a
}

// --- errors ---

// wantErr fails unless errors.Is(err, target).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error = %v, want errors.Is(err, %v)", what, err, target)
	}
}

// --- small slice helpers ---

func alarmIDs(as []domain.Alarm) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func sameIDSet(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := make(map[string]int, len(want))
	for _, id := range want {
		seen[id]++
	}
	for _, id := range got {
		if seen[id] == 0 {
			return false
		}
		seen[id]--
	}
	return true
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var extendLeaseCases = []testCase{
	{"KeepsTheAlarmFromOtherClaimers", testExtendLeaseKeeps},
	{"NewFenceReplacesTheOld", testExtendLeaseNewFence},
	{"LostLease", testExtendLeaseLost},
}

func (e *env) extend(a domain.Alarm, lease, d time.Duration) (domain.Fence, error) {
	e.t.Helper()
	return e.store.ExtendLease(e.ctx, ports.ExtendLease{AlarmID: a.ID, Fence: a.Fence(), Lease: lease, For: d})
}

// An extended lease outlives the original: past the first lease's end the alarm is
// still not claimable, and it is once the extension has run out.
func testExtendLeaseKeeps(t *testing.T, e *env) {
	a := e.createDue(alice)
	claimed := e.claimOnly("w1", shortLease, a.ID)
	e.clock.Advance(shortLease / 2)
	f, err := e.extend(claimed, shortLease, 10*time.Minute)
	if err != nil {
		t.Fatalf("ExtendLease: %v", err)
	}
	if f.Worker != "w1" {
		t.Errorf("the new fence names %q, want the same worker w1", f.Worker)
	}
	e.clock.Advance(2 * shortLease) // past the first lease, inside the extension
	e.claimNone("w2", shortLease)
	if got := e.get(alice, a.ID); got.ClaimedBy != "w1" || !got.ClaimedAt.Equal(f.ClaimedAt) {
		t.Errorf("the row carries (%q, %s), want the new fence exactly (%q, %s)", got.ClaimedBy, fmtTime(got.ClaimedAt), f.Worker, fmtTime(f.ClaimedAt))
	}
	e.clock.Advance(10 * time.Minute) // the extension has run out
	e.claimOnly("w2", shortLease, a.ID)
}

// After an extension the old fence is stale and the new one applies the outcome; an
// extension can itself be extended with the new fence.
func testExtendLeaseNewFence(t *testing.T, e *env) {
	a := e.createDue(alice)
	claimed := e.claimOnly("w1", shortLease, a.ID)
	e.clock.Advance(time.Second)
	f, err := e.extend(claimed, shortLease, 5*time.Minute)
	if err != nil {
		t.Fatalf("ExtendLease: %v", err)
	}
	e.applyStale([]domain.Transition{e.fire(claimed)}, a.ID)
	renewed := claimed
	renewed.ClaimedBy, renewed.ClaimedAt = f.Worker, f.ClaimedAt
	e.clock.Advance(time.Second)
	f2, err := e.extend(renewed, shortLease, 5*time.Minute)
	if err != nil {
		t.Fatalf("extending the extension: %v", err)
	}
	if _, err := e.extend(renewed, shortLease, time.Minute); err == nil {
		t.Error("the superseded fence extended the lease again")
	}
	renewed.ClaimedAt = f2.ClaimedAt
	e.applyOK(e.fire(renewed))
	if got := e.get(alice, a.ID); got.Status != domain.StatusFired || got.Claimed() {
		t.Errorf("after the outcome under the new fence: %s, claimed by %q", got.Status, got.ClaimedBy)
	}
}

// A lease that was lost (expired and re-taken, released by a cancel, or an alarm
// deleted) cannot be extended: ErrLeaseLost, and nothing changes.
func testExtendLeaseLost(t *testing.T, e *env) {
	retaken := e.createDue(alice)
	old := e.claimOnly("w1", shortLease, retaken.ID)
	e.clock.Advance(2 * shortLease)
	now := e.claimOnly("w2", shortLease, retaken.ID)
	_, err := e.extend(old, shortLease, time.Hour)
	wantErr(t, "ExtendLease of a re-taken lease", err, ports.ErrLeaseLost)
	e.sameLease("the re-taken alarm", e.get(alice, retaken.ID), now)

	cancelled := e.createDue(bob)
	held := e.claimOnly("w1", shortLease, cancelled.ID)
	e.mutate(bob, cancelled.ID, cancelFn)
	_, err = e.extend(held, shortLease, time.Hour)
	wantErr(t, "ExtendLease after a cancel released the lease", err, ports.ErrLeaseLost)
	if got := e.get(bob, cancelled.ID); got.Claimed() || got.Status != domain.StatusCancelled {
		t.Errorf("the cancelled alarm: %s, claimed by %q", got.Status, got.ClaimedBy)
	}

	_, err = e.store.ExtendLease(e.ctx, ports.ExtendLease{AlarmID: newID(), Fence: held.Fence(), Lease: shortLease, For: time.Hour})
	wantErr(t, "ExtendLease of an unknown alarm", err, ports.ErrLeaseLost)
}

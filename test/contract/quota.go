package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

var quotaCases = []testCase{
	{"CountsActiveAndPausedOfTheOwner", testQuotaCountsActiveAndPaused},
	{"CountsAtMost", testQuotaCountsAtMost},
}

func (e *env) countActive(owner string, atMost int) int {
	e.t.Helper()
	n, err := e.store.CountActive(e.ctx, owner, atMost)
	if err != nil {
		e.t.Fatalf("CountActive(%s, %d): %v", owner, atMost, err)
	}
	return n
}

// CountActive counts the owner's alarms that may still fire, active and paused, and
// nothing else: not its fired, cancelled or failed alarms, not another owner's. It
// follows every change of status: a cancel, a pause, a fire, a failure.
func testQuotaCountsActiveAndPaused(t *testing.T, e *env) {
	if n := e.countActive(alice, 100); n != 0 {
		t.Errorf("an owner without alarms: CountActive = %d, want 0", n)
	}
	var mine []domain.Alarm
	for range 4 {
		mine = append(mine, e.create(e.onceIn(alice, time.Hour)))
	}
	series := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	due := e.createDue(alice)
	spec := e.onceIn(alice, 0)
	spec.MaxFailures = 1
	failing := e.create(spec)
	for range 3 {
		e.create(e.onceIn(bob, time.Hour))
	}
	if n := e.countActive(alice, 100); n != 7 {
		t.Fatalf("alice's 7 active alarms: CountActive = %d, want 7", n)
	}

	e.mutate(alice, series.ID, pauseFn)
	e.mutate(alice, mine[0].ID, cancelFn)
	if n := e.countActive(alice, 100); n != 6 {
		t.Errorf("after pausing one and cancelling one: CountActive = %d, want 6 (a paused series counts)", n)
	}

	c := e.claim("w1", shortLease, 100)
	if len(c.Alarms) != 2 {
		t.Fatalf("claimed %v, want the two due alarms", alarmIDs(c.Alarms))
	}
	for _, a := range c.Alarms {
		if a.ID == due.ID {
			e.applyOK(e.fire(a))
		} else if a.ID == failing.ID {
			e.applyOK(e.fail(a, "HTTP 500"))
		}
	}
	if got := e.get(alice, failing.ID); got.Status != domain.StatusFailed {
		t.Fatalf("the failing alarm is %s, want failed", got.Status)
	}
	if n := e.countActive(alice, 100); n != 4 {
		t.Errorf("after one fired and one failed: CountActive = %d, want 4 (3 active, 1 paused)", n)
	}
	if n := e.countActive(bob, 100); n != 3 {
		t.Errorf("bob: CountActive = %d, want 3", n)
	}
}

// CountActive stops at atMost: the count is min(count, atMost), exact below it.
func testQuotaCountsAtMost(t *testing.T, e *env) {
	for range 5 {
		e.create(e.onceIn(alice, time.Hour))
	}
	for _, c := range []struct{ atMost, want int }{{1, 1}, {3, 3}, {5, 5}, {6, 5}, {1000000, 5}} {
		if n := e.countActive(alice, c.atMost); n != c.want {
			t.Errorf("CountActive(alice, %d) with 5 active = %d, want %d", c.atMost, n, c.want)
		}
	}
}

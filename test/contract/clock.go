package contract

import (
	"testing"
	"time"
)

var clockCases = []testCase{
	{"NowIsTheClock", testClockNow},
	{"ClockMakesDue", testClockMakesDue},
	{"RetryWaitsForBackoff", testClockRetryBackoff},
}

func (e *env) storeNow() time.Time {
	e.t.Helper()
	now, err := e.store.Now(e.ctx)
	if err != nil {
		e.t.Fatalf("Now: %v", err)
	}
	return now
}

// Now is the injected clock, in UTC, wherever it is moved (backwards included).
func testClockNow(t *testing.T, e *env) {
	for _, move := range []func(){
		func() {},
		func() { e.clock.Advance(36 * time.Hour) },
		func() { e.clock.Advance(1234567 * time.Nanosecond) },
		func() { e.clock.Set(epoch.Add(-24 * time.Hour)) },
	} {
		move()
		got := e.storeNow()
		e.wantTime("store Now", got, e.now())
		if got.Location() != time.UTC {
			t.Errorf("store Now is in %s, want UTC", got.Location())
		}
	}
}

// Moving the clock, not the wall, makes an alarm due.
func testClockMakesDue(t *testing.T, e *env) {
	a := e.create(e.onceIn(alice, 10*time.Minute))
	e.claimNone("w1", longLease)
	e.clock.Advance(10*time.Minute - time.Second)
	e.claimNone("w1", longLease)
	e.clock.Advance(time.Second)
	e.claimOnly("w1", longLease, a.ID)
}

// A retried alarm is due again only when the clock passes now + backoff, and comes
// back with its failure count.
func testClockRetryBackoff(t *testing.T, e *env) {
	s := e.onceIn(alice, 0)
	s.MaxFailures = 3
	a := e.create(s)
	retry := e.fail(e.claimOnly("w1", longLease, a.ID), "HTTP 502")
	e.applyOK(retry)
	wait := policy.Backoff.Delay(0)

	e.claimNone("w2", longLease)
	e.clock.Advance(wait - time.Second)
	e.claimNone("w2", longLease)
	e.clock.Advance(time.Second)
	again := e.claimOnly("w2", longLease, a.ID)
	if again.FailureCount != 1 || again.Attempt() != 2 || again.LastError != "HTTP 502" {
		t.Errorf("re-claimed after retry: failure_count %d, attempt %d, last_error %q; want 1, 2, \"HTTP 502\"",
			again.FailureCount, again.Attempt(), again.LastError)
	}
	e.wantTime("scheduled_for after retry (unchanged)", again.ScheduledFor, a.ScheduledFor)
}

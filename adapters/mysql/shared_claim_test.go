package mysql

import (
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A plain claim shares the batch between the lanes that have due alarms and fills it
// from the lanes that have more: beside a backlog of 3,000 (the newest), five owners
// with few due alarms give all theirs and the backlog the rest, its oldest; claimed
// again, the backlog alone fills the batch. Either claim is the lane listing, two rounds
// of takes and their stamps, and reads index entries for what it takes (its walks
// choose from twice their share) and for the leases in flight at the head of the lanes,
// a few batches in all, never the backlog.
func TestPlainClaimSharesTheBatch(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)}, "pool_max_conns", "1")
	ctx := t.Context()
	owners := ownersInLanes(6)
	var backlog, quiet []domain.Alarm
	for i := range 3000 {
		backlog = append(backlog, dueAlarm(t, owners[0], time.Hour-time.Duration(i)*time.Millisecond))
	}
	for i, o := range owners[1:] {
		for j := range i + 1 { // 1 to 5 alarms, older than the backlog
			quiet = append(quiet, dueAlarm(t, o, 2*time.Hour+time.Duration(j)*time.Second))
		}
	}
	if err := s.CreateMany(ctx, slices.Concat(backlog, quiet)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s.db, "ANALYZE TABLE alarms")

	const batch = 100
	claim := func(what string) []domain.Alarm {
		t.Helper()
		before := sessionCounters(t, s)
		c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		after := sessionCounters(t, s)
		statements, read := after[0]-before[0]-1, after[2]-before[2]
		// BEGIN, the clock, the lanes, the takes, the stamp, COMMIT.
		if statements > 9 || read > 5*batch {
			t.Errorf("%s: %d statements, %d index entries read; want at most 9 and %d", what, statements, read, 5*batch)
		}
		t.Logf("%s: %d statements, %d index dives, %d index entries read", what, statements, after[1]-before[1], read)
		if !slices.IsSortedFunc(c.Alarms, func(a, b domain.Alarm) int { return a.NextFireAt.Compare(b.NextFireAt) }) {
			t.Errorf("%s: alarms not handed out oldest due first", what)
		}
		return c.Alarms
	}
	first := claim("beside quiet owners")
	var fromBacklog []domain.Alarm
	for _, a := range first {
		if a.Owner == owners[0] {
			fromBacklog = append(fromBacklog, a)
		}
	}
	if len(first) != batch || len(first)-len(fromBacklog) != len(quiet) {
		t.Errorf("first claim: %d alarms, %d of the quiet owners' %d; want %d, all of theirs", len(first), len(first)-len(fromBacklog), len(quiet), batch)
	}
	wantSameIDs(t, "first claim, the backlog's", fromBacklog, backlog[:len(fromBacklog)])
	second := claim("the backlog alone")
	wantSameIDs(t, "second claim", second, backlog[len(fromBacklog):len(fromBacklog)+batch])
}

// wantSameIDs fails unless got holds want's alarms, in want's order.
func wantSameIDs(t *testing.T, what string, got, want []domain.Alarm) {
	t.Helper()
	if !slices.Equal(alarmIDsOf(got), alarmIDsOf(want)) {
		t.Errorf("%s = %v, want %v", what, alarmIDsOf(got), alarmIDsOf(want))
	}
}

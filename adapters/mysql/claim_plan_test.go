package mysql

import (
	"database/sql"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The claim's locking read must reach alarms by primary key only, after the non-locking
// walk has chosen them: a plan that scanned alarms_due under the lock would hold the
// entries of every leased row it stepped over until commit, and make the Applies of
// in-flight batches wait for the claim (docs/mysql.md). The plan is pinned with
// STRAIGHT_JOIN and FORCE INDEX; this checks it holds both when few alarms are due (the
// case in which the optimizer once chose the due index for the outer read) and when
// many are. The table is ten batches: a walk that would cover it all (claimWalkFactor
// batches of a table that holds two) is read fastest by a full scan, which is right.
func TestClaimLocksByPrimaryKeyOnly(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	ctx := t.Context()
	var as []domain.Alarm
	for i := range 1000 {
		a := newDueAlarm(t, "o", `1`)
		if i >= 3 { // the rest not due for a day
			a.NextFireAt = a.NextFireAt.Add(24 * time.Hour)
		}
		as = append(as, a)
	}
	if err := s.CreateMany(ctx, as); err != nil {
		t.Fatal(err)
	}
	for _, due := range []string{"few due", "all due"} {
		if due == "all due" {
			mustExec(t, s.db, "UPDATE alarms SET next_fire_at = ?", micro(testNow))
		}
		mustExec(t, s.db, "ANALYZE TABLE alarms")
		now := micro(testNow)
		plan := explainRows(t, s.db, claimSQL, claimArgs(now, now.Add(-time.Minute), 100)...)
		var outer, walk map[string]string
		for _, r := range plan {
			switch r["table"] {
			case "a":
				outer = r
			case "alarms":
				walk = r
			}
		}
		if outer == nil || outer["type"] != "eq_ref" || outer["key"] != "PRIMARY" {
			t.Errorf("%s: the locking read does not reach alarms by primary key only: %v", due, plan)
		}
		if walk == nil || walk["key"] != "alarms_due" {
			t.Errorf("%s: the walk does not use alarms_due: %v", due, plan)
		}
	}
}

// ExtendLease finds its row by primary key, and on the database clock returns the new
// lease exactly as stored: the server's now plus For - Lease, at microseconds.
func TestExtendLeaseByPrimaryKeyOnDatabaseClock(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	ctx := t.Context()
	a := newDueAlarm(t, "o", `1`)
	if _, _, err := s.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s.db, "UPDATE alarms SET next_fire_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND")
	mustExec(t, s.db, "ANALYZE TABLE alarms")
	plan := explainRows(t, s.db, extendLeaseSQL, micro(testNow), a.ID, "w", micro(testNow))
	if len(plan) != 1 || plan[0]["key"] != "PRIMARY" {
		t.Errorf("ExtendLease does not find its row by primary key: %v", plan)
	}

	c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 {
		t.Fatalf("ClaimDue = %d alarms, %v; want the due one", len(c.Alarms), err)
	}
	f, err := s.ExtendLease(ctx, ports.ExtendLease{AlarmID: a.ID, Fence: c.Alarms[0].Fence(), Lease: time.Minute, For: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := c.Now.Add(59*time.Minute), after.Add(59*time.Minute); f.Worker != "w1" || f.ClaimedAt.Before(lo) || f.ClaimedAt.After(hi) {
		t.Errorf("new fence %+v, want w1 at the database's now + 59m, between %s and %s", f, lo, hi)
	}
	if got, err := s.Get(ctx, "o", a.ID); err != nil || got.Fence() != f {
		t.Errorf("stored lease %+v (%v) differs from the returned one %+v", got.Fence(), err, f)
	}
}

// explainRows is EXPLAIN of q, one map of column to value per row.
func explainRows(t *testing.T, db *sql.DB, q string, args ...any) []map[string]string {
	t.Helper()
	cols, rows := textRows(t, db, "EXPLAIN "+q, args...)
	var out []map[string]string
	for _, vals := range rows {
		r := map[string]string{}
		for i, c := range cols {
			r[c] = vals[i].String
		}
		out = append(out, r)
	}
	return out
}

package mysql

import (
	"database/sql"
	"github.com/chronoshq/chronos/test/contract"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// NextDue is one dive per lane: 64 parts, each an ordered walk of alarms_lane_due for
// its lane (status and lane; no filesort) that stops at its first unleased row, here
// past the 100 oldest of one owner's 500, which are leased. Checked before the table
// has statistics and after.
func TestNextDueDivesEachLane(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 500, func(i int) domain.Alarm {
		a := newDueAlarm(t, "o", `1`)
		a.NextFireAt = a.NextFireAt.Add(time.Duration(i) * time.Second)
		return a
	})
	mustExec(t, s.db, "UPDATE alarms SET claimed_by = 'other', claimed_at = ? ORDER BY next_fire_at, id LIMIT 100", micro(testNow))
	for _, due := range []string{"no statistics", "analyzed"} {
		if due == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		plan := explainRows(t, s.db, nextDueSQL)
		dives := 0
		for _, r := range plan {
			switch {
			case r["table"] == "alarms":
				dives++
				if r["type"] != "ref" && r["type"] != "range" || r["key"] != "alarms_lane_due" || strings.Contains(r["Extra"], "filesort") {
					t.Errorf("%s: a lane's part is not a walk of alarms_lane_due in index order: %v", due, r)
				}
			case r["table"] != "" && !strings.HasPrefix(r["table"], "<derived") && !strings.HasPrefix(r["table"], "<union"):
				t.Errorf("%s: unexpected read: %v", due, r)
			}
		}
		if dives != ports.Lanes {
			t.Errorf("%s: %d lanes walked, want %d: %v", due, dives, ports.Lanes, plan)
		}
		if at, ok, err := s.NextDue(ctx); err != nil || !ok || !at.Equal(micro(as[100].NextFireAt)) {
			t.Errorf("%s: NextDue = %s, %t, %v; want the 101st alarm's due time %s", due, at, ok, err, micro(as[100].NextFireAt))
		}
	}
}

// ExtendLease finds its row by primary key, and on the database clock returns the new
// lease exactly as stored: the server's now plus For - Lease, at microseconds.
func TestExtendLeaseByPrimaryKeyOnDatabaseClock(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	ctx := t.Context()
	a := newDueAlarm(t, "o", `1`)
	if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
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
	if got, err := s.Get(ctx, ports.OwnedBy("o"), a.ID); err != nil || got.Fence() != f {
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

package mysql

// The plans of the store's statements, read with EXPLAIN: each walks the index it is
// meant to, before the table has statistics and after.

import (
	"database/sql"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// Every page of AdminList is a walk of the index it is pinned to, in id order, never a
// sort: across owners the primary key backwards, with an owner the owner's index as
// List walks it. Checked before the table has statistics and after, on a table where a
// free optimizer takes a rare status through the due index and sorts it (MariaDB 10.11
// did, for a status or failed_since across owners, with and without statistics). The
// counts read alarms_lane_due, the status counts without a temporary table, the due
// backlog as one range per lane.
func TestAdminPlansWalkTheirIndex(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 1000, func(i int) domain.Alarm {
		a := newDueAlarm(t, []string{"alice", "bob", "carol"}[i%3], `1`)
		a.Label = "billing:" + a.ID
		return a
	})
	// A rare status: ten failed alarms.
	mustExec(t, s.db, "UPDATE alarms SET status = 'failed' WHERE id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		as[1].ID, as[50].ID, as[100].ID, as[200].ID, as[300].ID, as[400].ID, as[500].ID, as[600].ID, as[700].ID, as[800].ID)
	since := testNow.Add(-time.Hour)
	cursor := as[500].ID

	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		for _, c := range []struct {
			name string
			f    ports.ListFilter
			key  string
		}{
			{"everything", ports.ListFilter{Scope: ports.AnyOwner}, "PRIMARY"},
			{"status active", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusActive}, "PRIMARY"},
			{"status fired", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFired}, "PRIMARY"},
			{"status failed", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFailed}, "alarms_rare_status"},
			{"status paused", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusPaused}, "alarms_rare_status"},
			{"status cancelled, kind", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusCancelled, Kind: domain.KindCron}, "alarms_rare_status"},
			{"kind", ports.ListFilter{Scope: ports.AnyOwner, Kind: domain.KindCron}, "PRIMARY"},
			{"label prefix", ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: "billing:"}, "PRIMARY"},
			{"failed since", ports.ListFilter{Scope: ports.AnyOwner, FailedSince: since}, "alarms_rare_status"},
			{"status, kind, label, failed since", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFailed, Kind: domain.KindOnce, LabelPrefix: "b", FailedSince: since}, "alarms_rare_status"},
			{"owner", ports.ListFilter{Scope: ports.OwnedBy("alice")}, "alarms_owner_list"},
			{"owner and kind", ports.ListFilter{Scope: ports.OwnedBy("alice"), Kind: domain.KindOnce}, "alarms_owner_list"},
			{"owner and status", ports.ListFilter{Scope: ports.OwnedBy("alice"), Status: domain.StatusFailed}, "alarms_owner_status_list"},
			{"owner, failed since", ports.ListFilter{Scope: ports.OwnedBy("bob"), FailedSince: since}, "alarms_owner_status_list"},
		} {
			for _, after := range []string{"", cursor} {
				q, args := adminListQuery(c.f).pageSQL(after, 100)
				plan := explainRows(t, s.db, q, args...)
				if len(plan) != 1 || plan[0]["key"] != c.key || strings.Contains(plan[0]["Extra"], "filesort") {
					t.Errorf("%s, %s, cursor %t: plan %v; want one walk of %s, no sort", stats, c.name, after != "", plan, c.key)
				}
				// A rare status's walk stops after the page: a page of 3 (and the row
				// more) reads 4 of the failed alarms (ten, six of them older than the
				// cursor) and none of the 990 others; a status none has reads nothing.
				if c.key == "alarms_rare_status" && s.server.MariaDB {
					want := 4
					if c.f.Status == domain.StatusPaused || c.f.Status == domain.StatusCancelled {
						want = 0
					}
					q, args := adminListQuery(c.f).pageSQL(after, 3)
					if got := rowsRead(t, s, q, args...); got != want {
						t.Errorf("%s, %s, cursor %t: a page of 3 read %d rows, want %d", stats, c.name, after != "", got, want)
					}
				}
			}
		}
		for name, q := range map[string]string{"by status": countByStatusSQL, "due": countDueSQL} {
			var args []any
			if name == "due" {
				args = []any{micro(testNow), micro(testNow.Add(-time.Minute))}
			}
			plan := explainRows(t, s.db, q, args...)
			if len(plan) != 1 || plan[0]["key"] != "alarms_lane_due" ||
				strings.Contains(plan[0]["Extra"], "temporary") || strings.Contains(plan[0]["Extra"], "filesort") {
				t.Errorf("%s, count %s: plan %v; want one walk of alarms_lane_due, no temporary table or sort", stats, name, plan)
			}
			// The backlog is a range of each lane up to now, on all three key parts,
			// not a walk of every active alarm.
			if name == "due" && (plan[0]["type"] != "range" || plan[0]["key_len"] != "76") {
				t.Errorf("%s, count due: plan %v; want ranges of alarms_lane_due on (status, lane, next_fire_at)", stats, plan)
			}
		}
	}

	// And the pages are what they should be.
	got, _, err := s.List(ctx, ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFailed, Limit: 3})
	if err != nil || len(got) != 3 || got[0].ID != as[800].ID || got[2].ID != as[600].ID {
		t.Errorf("the newest failed alarms = %v, %v; want the 3 newest of the ten", alarmIDsOf(got), err)
	}
}

func alarmIDsOf(as []domain.Alarm) []string {
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

// rowsRead is how many rows MariaDB's ANALYZE says the statement's one table access
// read (r_rows), executed in a transaction that is rolled back.
func rowsRead(t *testing.T, s *Store, query string, args ...any) int {
	t.Helper()
	tx, err := s.db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var out string
	if err := tx.QueryRowContext(t.Context(), "ANALYZE FORMAT=JSON "+query, args...).Scan(&out); err != nil {
		t.Fatalf("ANALYZE: %v", err)
	}
	m := rRows.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		t.Fatalf("ANALYZE: want one r_rows, got:\n%s", out)
	}
	n, err := strconv.ParseFloat(m[0][1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

var rRows = regexp.MustCompile(`"r_rows":\s*([0-9.]+)`)

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

	storetest.ExtendLeaseOnDatabaseClock(t, s, "o", a.ID)
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

// Each lane's take is one indexed probe: its walk is a range of alarms_lane_due on all
// three key parts, in index order (no filesort), and its locking read reaches the chosen
// rows by primary key only, as the plain claim's does (TestClaimLocksByPrimaryKeyOnly);
// the padding parts of a bucketed take read nothing; and the due lanes are found by a
// loose index scan, one dive per lane. Checked with few alarms due and with all due,
// after ANALYZE TABLE, on a table of three owners' lanes.
func TestFairClaimProbesEachLane(t *testing.T) {
	owners := ownersInLanes(3)
	s, _ := seededStore(t, 1000, func(i int) domain.Alarm {
		ago := time.Second
		if i >= 9 { // the rest not due for a day
			ago = -24 * time.Hour
		}
		return dueAlarm(t, owners[i%len(owners)], ago)
	})
	lanes := []int{laneOf(owners[0]), laneOf(owners[1]), laneOf(owners[2])}
	now := micro(testNow)
	for _, due := range []string{"few due", "all due"} {
		if due == "all due" {
			mustExec(t, s.db, "UPDATE alarms SET next_fire_at = ?", now)
		}
		mustExec(t, s.db, "ANALYZE TABLE alarms")

		plan := explainRows(t, s.db, dueLanesSQL, now)
		if len(plan) != 1 || plan[0]["key"] != "alarms_lane_due" || !strings.Contains(plan[0]["Extra"], "Using index for group-by") {
			t.Errorf("%s: the due lanes are not a loose index scan of alarms_lane_due: %v", due, plan)
		}

		text, args := fairTakeSQL(lanes, now, now.Add(-time.Minute), 10) // 4 parts, one padding
		plan = explainRows(t, s.db, text, args...)
		walks, locks := 0, 0
		for _, r := range plan {
			switch {
			case r["table"] == "alarms":
				walks++
				if r["type"] != "range" || r["key"] != "alarms_lane_due" || r["key_len"] != "76" || strings.Contains(r["Extra"], "filesort") {
					t.Errorf("%s: a lane's walk is not a range of alarms_lane_due (status, lane, next_fire_at) in index order: %v", due, r)
				}
			case r["table"] == "a":
				locks++
				if r["type"] != "eq_ref" || r["key"] != "PRIMARY" {
					t.Errorf("%s: a lane's locking read does not reach alarms by primary key only: %v", due, r)
				}
			case r["table"] != "" && !strings.HasPrefix(r["table"], "<derived"):
				t.Errorf("%s: unexpected read: %v", due, r)
			}
		}
		if walks != len(lanes) || locks != len(lanes) {
			t.Errorf("%s: %d walks and %d locking reads for %d lanes (the padding part must read nothing): %v",
				due, walks, locks, len(lanes), plan)
		}
	}
}

// DuePauses walks alarms_paused_until in order and stops after the limit, before the
// table has statistics and after, on 1,000 alarms of which 100 are paused and 10 of
// those have an end that has passed: never a walk of alarms_due or alarms_rare_status
// (every paused alarm) and a sort, on the database clock or an injected one. On MariaDB,
// a call for 3 reads 3 rows.
func TestDuePausesWalksItsIndex(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 1000, func(i int) domain.Alarm {
		return newDueAlarm(t, "o", `1`)
	})
	for i := 0; i < len(as); i += 10 {
		mustExec(t, s.db, "UPDATE alarms SET kind = 'cron', cron_expr = '* * * * *', status = 'paused' WHERE id = ?", as[i].ID)
		if i%100 == 0 {
			mustExec(t, s.db, "UPDATE alarms SET paused_until = ? WHERE id = ?", micro(testNow.Add(-time.Duration(i)*time.Second)), as[i].ID)
		}
	}
	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		for _, now := range []any{nil, micro(testNow)} {
			plan := explainRows(t, s.db, duePausesSQL, now, 3)
			if len(plan) != 1 || plan[0]["key"] != "alarms_paused_until" || plan[0]["type"] != "range" ||
				strings.Contains(plan[0]["Extra"], "filesort") {
				t.Errorf("%s, now %v: plan %v; want one range of alarms_paused_until, no sort", stats, now, plan)
			}
			if s.server.MariaDB && now != nil { // the database clock's now is years before testNow
				if got := rowsRead(t, s, duePausesSQL, now, 3); got != 3 {
					t.Errorf("%s, now %v: DuePauses(3) read %d rows, want 3", stats, now, got)
				}
			}
		}
	}
	ids, err := s.DuePauses(ctx, 3)
	if err != nil || len(ids) != 3 || ids[0] != as[900].ID || ids[2] != as[700].ID {
		t.Errorf("DuePauses(3) = %v, %v; want the three earliest ends, %s first", ids, err, as[900].ID)
	}
}

// The quota's count reads the owner's active and paused entries of
// alarms_owner_status_list and nothing else of the table (a range read from the index
// alone), before the table has statistics and after, and stops at its limit.
func TestCountActiveWalksItsIndex(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 900, func(i int) domain.Alarm {
		return newDueAlarm(t, []string{"alice", "bob", "carol"}[i%3], `1`)
	})
	// alice: 300 alarms, of which 30 paused and 30 cancelled.
	for i := 0; i < len(as); i += 30 {
		mustExec(t, s.db, "UPDATE alarms SET kind = 'cron', cron_expr = '* * * * *', status = 'paused' WHERE id = ?", as[i].ID)
		mustExec(t, s.db, "UPDATE alarms SET status = 'cancelled' WHERE id = ?", as[i+3].ID)
	}
	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		var walk map[string]string
		for _, row := range explainRows(t, s.db, countActiveSQL, "alice", 1000) {
			if row["table"] == "alarms" {
				walk = row
			}
		}
		if walk["key"] != "alarms_owner_status_list" || walk["type"] != "range" ||
			!strings.Contains(walk["Extra"], "Using index") || strings.Contains(walk["Extra"], "filesort") {
			t.Errorf("%s: the count reads alarms as %v; want a range of alarms_owner_status_list from the index alone", stats, walk)
		}
	}
	for _, c := range []struct{ atMost, want int }{{1000, 270}, {100, 100}} {
		if got, err := s.CountActive(ctx, "alice", c.atMost); err != nil || got != c.want {
			t.Errorf("CountActive(alice, %d) = %d, %v; want %d", c.atMost, got, err, c.want)
		}
	}
}

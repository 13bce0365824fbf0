package mysql

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
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

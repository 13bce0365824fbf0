package postgres

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// Every statement of the store keeps its index plan whatever the planner's statistics
// say: on an empty table (where a session's generic plan is often made, and then kept
// as the table grows), on a large table never analyzed (a server with autovacuum off),
// and on an analyzed one. A statement that can fall back to a sequential or bitmap scan,
// or sort what it should walk in order, pays for the whole table on every call.
func TestPlansWithoutStatistics(t *testing.T) {
	// An alarm is found by its id (its owner is checked on the row).
	const byID = "Index Scan using alarms_pkey"
	statements := []struct {
		name, sql, args string
		want            []string // each must appear in the plan (one of "a|b")
		walks           bool     // reads an index in order: a Sort means it read everything first
	}{
		{"claim", claimSQL, `NULL, 'w', 120000000, 100`, []string{"Index Scan using alarms_due_idx", "Tid Scan on alarms"}, true},
		{"fair claim", fairClaimSQL, `NULL, 'w', 120000000, 100, ` + laneArg(0) + `, 10`, []string{"Index Scan using alarms_lane_due_idx", "Tid Scan on alarms"}, true},
		{"next due", nextDueSQL, ``, []string{"Index Scan using alarms_due_idx"}, true},
		{"due pauses", duePausesSQL, `NULL, 100`, []string{"Index Scan using alarms_paused_until_idx"}, true},
		{"apply", applySQL, applyLiterals, []string{"Index Scan using alarms_pkey on alarms"}, false},
		{"extend lease", extendLeaseSQL, `NULL, '000000000001', 'w', '` + planAt + `', 60000000`, []string{byID}, false},
		{"get", getSQL, `'000000000001'`, []string{byID}, false},
		{"lock for mutate", lockAlarmSQL, `'000000000001'`, []string{byID}, false},
		{"idempotency key", byIdempotencyKeySQL, `'owner1', 'k1'`, []string{"alarms_owner_idempotency_key_idx"}, false},
		{"list first page", listFirstSQL, `'owner1', 11`, []string{"Merge Append", "Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"list next page", listAfterSQL, `'owner1', 11, '000000010000'`, []string{"Merge Append", "Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"list of a status", listStatusFirstSQL, `'owner1', 11, 'active'`, []string{"Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"list of a status, next page", listStatusAfterSQL, `'owner1', 11, 'active', '000000010000'`, []string{"Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"retention: expired alarms", expiredAlarmsSQL, `'2031-01-01T00:00:00Z', 1000`, []string{"Index Scan using alarms_terminal_idx", "Tid Scan on alarms"}, true},
		{"retention: events of deleted alarms", eventsOfSQL, `'{000000000001}'`, []string{"alarm_events_pkey"}, false},
		{"retention: events sweep", trimEventsSQL, `'', 500, '2031-01-01T00:00:00Z', 1000`, []string{"Index Only Scan using alarms_pkey", "alarm_events_pkey"}, false},
		{"events", eventsSQL, `'000000000001', 1000`, []string{byID, "Index Scan using alarm_events_pkey"}, false},
		// The admin API: every owner's alarms walk the primary key, an owner's the owner
		// index as List does; kind, label prefix and failed-since only filter the walk.
		{"admin list", adminListSQL[0][0][0], `11, NULL, NULL, NULL, NULL`, []string{"Index Scan Backward using alarms_pkey"}, true},
		{"admin list, next page", adminListSQL[0][0][1], `11, NULL, NULL, NULL, NULL, '000000010000'`, []string{"Index Scan Backward using alarms_pkey"}, true},
		{"admin list, every filter but the owner", adminListSQL[0][1][1], `11, 'failed', 'once', 'billing:', '` + planAt + `', '000000010000'`, []string{"Index Scan Backward using alarms_pkey"}, true},
		{"admin list of an owner", adminListSQL[1][0][0], `11, NULL, NULL, NULL, NULL, 'owner1'`, []string{"Merge Append", "Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"admin list of an owner, next page", adminListSQL[1][0][1], `11, NULL, 'cron', 'a', NULL, 'owner1', '000000010000'`, []string{"Merge Append", "Index Scan Backward using alarms_owner_status_id_idx"}, true},
		{"admin list of an owner and a status", adminListSQL[1][1][1], `11, 'failed', 'once', 'a', '` + planAt + `', 'owner1', '000000010000'`, []string{"Index Scan Backward using alarms_owner_status_id_idx"}, true},
		// A rare status without an owner walks the partial index of rare statuses.
		{"admin list, failed", adminRareSQL["failed"][0], `11, 'failed', NULL, NULL, NULL`, []string{"Index Scan Backward using alarms_rare_status_idx"}, true},
		{"admin list, paused, next page", adminRareSQL["paused"][1], `11, 'paused', NULL, NULL, NULL, '000000010000'`, []string{"Index Scan Backward using alarms_rare_status_idx"}, true},
		{"admin list, cancelled", adminRareSQL["cancelled"][0], `11, 'cancelled', 'cron', 'a', NULL`, []string{"Index Scan Backward using alarms_rare_status_idx"}, true},
		{"admin list, failed since, next page", adminRareSQL["failed"][1], `11, 'failed', 'once', 'billing:', '` + planAt + `', '000000010000'`, []string{"Index Scan Backward using alarms_rare_status_idx"}, true},
		{"admin delete", deleteByIDSQL, `'{000000000001,000000000002}'`, []string{byID}, false},
		// The quota's count: the owner's ranges of alarms_owner_status_id_idx, stopped
		// by its LIMIT.
		{"quota count", countActiveSQL, `'owner1', 1000`, []string{"Index Only Scan using alarms_owner_status_id_idx|Index Scan using alarms_owner_status_id_idx"}, true},
		{"admin counts", countAlarmsSQL, `NULL, 60000000`, []string{"Index Scan using alarms_due_idx"}, false},
	}
	states := []struct {
		name string
		load func(t *testing.T, s *Store)
	}{
		{"empty", func(*testing.T, *Store) {}},
		{"never analyzed", func(t *testing.T, s *Store) { insertAlarms(t, s, 20000, 200, 20000) }},
		{"analyzed", func(t *testing.T, s *Store) { loadAlarms(t, s, 20000, 200, 20000) }},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			s, _ := newTestStore(t, nil)
			st.load(t, s)
			for _, q := range statements {
				plan := explainGenericWith(t, s, q.sql, "COSTS OFF", q.args)
				for _, w := range q.want {
					if !containsAny(plan, strings.Split(w, "|")) {
						t.Errorf("%s: the plan has no %q:\n%s", q.name, w, plan)
					}
				}
				for _, b := range []string{"Seq Scan on alarms", "Bitmap"} {
					if strings.Contains(plan, b) {
						t.Errorf("%s: the plan has a %s:\n%s", q.name, b, plan)
					}
				}
				// The batch of Apply and an alarm's page of events are bounded before
				// they are sorted; a walk is not. (A Merge Append's "Sort Key" is no
				// sort: it merges inputs already in order.)
				if q.walks && sortNode.MatchString(plan) {
					t.Errorf("%s: the plan sorts:\n%s", q.name, plan)
				}
			}
		})
	}
}

// The settings that make those plans are the store's own, and a store URL can still
// set each of them.
func TestSessionSettings(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, newSchema(t)+"&enable_bitmapscan=on", Options{Migrate: true})
	for name, want := range map[string]string{"enable_seqscan": "off", "enable_bitmapscan": "on", "jit": "off"} {
		var got string
		if err := s.pool.QueryRow(ctx, `SHOW `+name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}

// A statement whose only path is the priced-out sequential scan (the workers of a
// cluster, its tokens) is not JIT-compiled: its cost is the disable cost, far over
// jit_above_cost, and compiling it took 30-120 ms for a table of one row.
func TestNoJITForTinyTables(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, newSchema(t), Options{Migrate: true})
	if err := s.RegisterWorker(ctx, domain.Worker{ID: "w", Host: "h", PID: 1}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(ctx, "EXPLAIN (ANALYZE, FORMAT TEXT) "+sqlrow.ListWorkersSQL)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if strings.Contains(plan.String(), "JIT:") {
		t.Errorf("listing the workers was JIT-compiled:\n%s", plan.String())
	}
}

var sortNode = regexp.MustCompile(`(?m)^\s*(->\s+)?(Incremental )?Sort$`)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

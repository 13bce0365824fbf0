package mysql

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestExplainClaim prints the plans docs/mysql.md quotes: the claim, NextDue and Apply's
// UPDATE-JOIN over 1,000,000 active alarms none of which is due yet. It takes a minute
// and some disk, so it runs only when asked:
//
//	CHRONOS_MYSQL_EXPLAIN=1 go test ./adapters/mysql/ -run TestExplainClaim -v -timeout 30m
//
// The rows live in the test's own database, dropped at the end like every other.
func TestExplainClaim(t *testing.T) {
	storetest.Asked(t, "CHRONOS_MYSQL_EXPLAIN", "1", "load 1,000,000 alarms and print the claim's plans")
	const rows = 1_000_000
	s, _ := openTestStore(t, Options{})
	ctx := t.Context()

	start := time.Now()
	// Ids sort like UUIDv7 strings would; due times start a day from now, one a second.
	mustExec(t, s.db, `INSERT INTO alarms (`+alarmColumns+`)
		SELECT CONCAT('0190f0c0-0000-7000-8000-', LPAD(n, 12, '0')), CONCAT('owner', n % 100), 'bulk', 'once',
			due, '', '', due, due, '', '', 'null', 'active', 'at_least_once', NULL, 5, 0, '', NULL, NULL,
			UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), NULL, NULL, 0, 0, '', NULL, ''
		FROM (SELECT n, UTC_TIMESTAMP(6) + INTERVAL 1 DAY + INTERVAL n SECOND AS due
			FROM (SELECT a.d + 10*b.d + 100*c.d + 1000*e.d + 10000*f.d + 100000*g.d AS n
				FROM `+digits+` a, `+digits+` b, `+digits+` c, `+digits+` e, `+digits+` f, `+digits+` g) ns) gen`)
	mustExec(t, s.db, "ANALYZE TABLE alarms")
	t.Logf("loaded %d not-yet-due alarms in %s", rows, time.Since(start).Round(time.Second))

	var version string
	if err := s.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", version)

	now, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	take, args := fairTakeSQL([]int{laneOf("owner1")}, now, now.Add(-2*time.Minute), 100)
	explain(t, s.db, "claim: the due lanes", dueLanesSQL, now)
	explain(t, s.db, "claim: a lane's take, the walk and the locking read around it", take, args...)
	explain(t, s.db, "NextDue", nextDueSQL)
	explain(t, s.db, "Apply: UPDATE-JOIN of two transitions", `UPDATE alarms a JOIN (
		SELECT ? AS id, ? AS status, CAST(? AS DATETIME(6)) AS next_fire_at
		UNION ALL SELECT ?, ?, ?) t ON a.id = t.id
		SET a.status = t.status, a.next_fire_at = t.next_fire_at`,
		"0190f0c0-0000-7000-8000-000000000001", "fired", now, "0190f0c0-0000-7000-8000-000000000002", "fired", now)

	analyzeQuery(t, s, "claim, nothing due: the due lanes", dueLanesSQL, now)
	analyzeQuery(t, s, "NextDue", nextDueSQL)
	start = time.Now()
	claimed, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: 2 * time.Minute, Batch: 100})
	if err != nil || len(claimed.Alarms) != 0 {
		t.Fatalf("ClaimDue = %d alarms, %v; want none due", len(claimed.Alarms), err)
	}
	t.Logf("ClaimDue with nothing due: %s", time.Since(start))

	// Now 10,000 of them fall due, and the 50 oldest are leased to another worker (in
	// flight): a claim of 100 shares it between the 64 lanes those 100 owners are in.
	mustExec(t, s.db, `UPDATE alarms SET next_fire_at = UTC_TIMESTAMP(6) - INTERVAL 1 DAY + INTERVAL CAST(RIGHT(id, 12) AS UNSIGNED) SECOND
		WHERE id < '0190f0c0-0000-7000-8000-000000010000'`)
	mustExec(t, s.db, `UPDATE alarms SET claimed_by = 'other', claimed_at = UTC_TIMESTAMP(6)
		WHERE status = 'active' ORDER BY next_fire_at, id LIMIT 50`)
	if now, err = s.Now(ctx); err != nil {
		t.Fatal(err)
	}
	analyzeQuery(t, s, "claim, 10,000 due: the due lanes", dueLanesSQL, now)
	start = time.Now()
	claimed, err = s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: 2 * time.Minute, Batch: 100})
	if err != nil || len(claimed.Alarms) != 100 {
		t.Fatalf("ClaimDue = %d alarms, %v; want 100", len(claimed.Alarms), err)
	}
	t.Logf("ClaimDue of 100 with 10,000 due: %s", time.Since(start))
}

// analyzeQuery logs what q really reads (MariaDB ANALYZE FORMAT=JSON, MySQL EXPLAIN
// ANALYZE), executed in a transaction that is rolled back.
func analyzeQuery(t *testing.T, s *Store, what, q string, args ...any) {
	t.Helper()
	analyze := "ANALYZE FORMAT=JSON "
	if !s.server.MariaDB {
		analyze = "EXPLAIN ANALYZE " // MySQL 8.0.18+
	}
	tx, err := s.db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	r, err := tx.QueryContext(t.Context(), analyze+q, args...)
	if err != nil {
		t.Fatalf("%s%s: %v", analyze, what, err)
	}
	defer r.Close()
	var b strings.Builder
	for r.Next() {
		var line string
		if err := r.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s%s:\n%s", analyze, what, b.String())
}

// explain logs EXPLAIN of q as a table.
func explain(t *testing.T, db *sql.DB, what, q string, args ...any) {
	t.Helper()
	cols, rows := textRows(t, db, "EXPLAIN "+q, args...)
	var b strings.Builder
	b.WriteString(strings.Join(cols, " | ") + "\n")
	for _, vals := range rows {
		cells := make([]string, len(cols))
		for i, v := range vals {
			cells[i] = "NULL"
			if v.Valid {
				cells[i] = v.String
			}
		}
		b.WriteString(strings.Join(cells, " | ") + "\n")
	}
	t.Log(fmt.Sprintf("EXPLAIN %s:\n%s", what, b.String()))
}

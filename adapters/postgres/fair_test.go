package postgres

import (
	"context"
	"fmt"
	"github.com/chronoshq/chronos/test/contract"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// laneArg is a fair claim's $5 from lane start, as an SQL array literal.
func laneArg(start int) string {
	ls := make([]string, ports.Lanes)
	for i, l := range laneCycle[start : start+ports.Lanes] {
		ls[i] = strconv.Itoa(int(l))
	}
	return `'{` + strings.Join(ls, ",") + `}'`
}

// claimableByLane counts the claimable alarms of each lane (the database clock, a
// two-minute lease), and all of them.
func claimableByLane(t *testing.T, s *Store) (byLane [ports.Lanes]int, all int) {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT hashtext(owner) & 63, count(*) FROM alarms
		WHERE status = 'active' AND next_fire_at <= now()
		  AND (claimed_at IS NULL OR claimed_at <= now() - interval '2 minutes')
		GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var lane, n int
		if err := rows.Scan(&lane, &n); err != nil {
			t.Fatal(err)
		}
		byLane[lane], all = n, all+n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return byLane, all
}

// A fair claim, in its custom plan and in the generic plan the store's sessions use,
// probes alarms_lane_due_idx once per lane in turn, sorts nothing, and stops at the
// lane the batch fills up in: executed, it visits exactly the lanes a fair claim must,
// takes the batch, and leaves every due alarm it did not take unlocked (another session
// can still lock them all), the rest of the last lane's included.
func TestFairClaimPlanProbesLanesInTurn(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 2000, 5000) // 40 due alarms for each of 50 owners
	byLane, due := claimableByLane(t, s)
	const start, batch, perLane = 5, 10, 3
	// The lanes a fair claim visits: in turn from start until the batch is full.
	visited, taken := 0, 0
	for _, l := range laneCycle[start : start+ports.Lanes] {
		if taken == batch {
			break
		}
		visited++
		taken += min(byLane[l], perLane, batch-taken)
	}
	if taken != batch || visited < 3 {
		t.Fatalf("the load gives %d alarms over %d lanes; the test wants a full batch over several", taken, visited)
	}
	args := fmt.Sprintf(`NULL, 'w', 120000000, %d, %s, %d`, batch, laneArg(start), perLane)

	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		t.Run(mode, func(t *testing.T) {
			plan := explainIn(t, s, mode, fairClaimSQL, "COSTS OFF", args, nil)
			for _, want := range []string{"Function Scan on unnest turn", "Index Scan using alarms_lane_due_idx on alarms", "Tid Scan on alarms"} {
				if !strings.Contains(plan, want) {
					t.Errorf("the fair claim's plan has no %q:\n%s", want, plan)
				}
			}
			for _, bad := range []string{"Seq Scan", "Bitmap", "alarms_due_idx", "Materialize"} {
				if strings.Contains(plan, bad) {
					t.Errorf("the fair claim's plan has a %s:\n%s", bad, plan)
				}
			}
			if sortNode.MatchString(plan) {
				t.Errorf("the fair claim's plan sorts (every lane would be probed and locked first):\n%s", plan)
			}
			if generic := strings.Contains(plan, "$1"); generic != (mode == "force_generic_plan") {
				t.Errorf("%s: the plan has parameters: %v:\n%s", mode, generic, plan)
			}

			lockable := -1
			analyzed := explainIn(t, s, mode, fairClaimSQL, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", args, func() {
				// SKIP LOCKED counts what the claim left unlocked.
				err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT 1 FROM alarms
					WHERE status = 'active' AND next_fire_at <= now() FOR UPDATE SKIP LOCKED) free`).Scan(&lockable)
				if err != nil {
					t.Fatal(err)
				}
			})
			for _, want := range []string{
				fmt.Sprintf("Update on alarms (actual rows=%d loops=1)", batch),
				fmt.Sprintf("Function Scan on unnest turn (actual rows=%d loops=1)", visited),
				fmt.Sprintf("Index Scan using alarms_lane_due_idx on alarms alarms_1 (actual rows=%%d loops=%d)", visited),
			} {
				if !matchesCount(analyzed, want) {
					t.Errorf("executed, the fair claim's plan has no %q:\n%s", want, analyzed)
				}
			}
			if lockable != due-batch {
				t.Errorf("while the claim of %d was open, %d of %d due alarms could be locked, want %d:\n%s",
					batch, lockable, due, due-batch, analyzed)
			}
		})
	}
}

// matchesCount says whether s has the line want, whose one %d stands for any count.
func matchesCount(s, want string) bool {
	before, after, ok := strings.Cut(want, "%d")
	if !ok {
		return strings.Contains(s, want)
	}
	for rest := s; ; {
		i := strings.Index(rest, before)
		if i < 0 {
			return false
		}
		rest = rest[i+len(before):]
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits > 0 && strings.HasPrefix(rest[digits:], after) {
			return true
		}
	}
}

// A due alarm another transaction holds locked is skipped, not waited for: the lane
// gives its next alarm instead.
func TestFairClaimSkipsLockedRows(t *testing.T) {
	s, now := dbClockStore(t)
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		at := now.Add(time.Duration(i-10) * time.Second)
		a, err := domain.NewAlarm(fmt.Sprintf("a%d", i), domain.Spec{Owner: "alice", Kind: domain.KindOnce, FireAt: &at},
			now.Add(-time.Minute), domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var lane int
	if err := tx.QueryRow(ctx, `SELECT hashtext(owner) & 63 FROM alarms WHERE id = $1 FOR UPDATE`, ids[0]).Scan(&lane); err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := s.ClaimDue(cctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: 10,
		Fair: &ports.FairClaim{Start: lane, PerLane: 1}})
	if err != nil {
		t.Fatalf("fair ClaimDue beside a locked row: %v", err)
	}
	if len(c.Alarms) != 1 || c.Alarms[0].ID != ids[1] {
		t.Errorf("fair ClaimDue = %v, want [%s] (the lane's oldest is locked)", alarmIDsOf(c.Alarms), ids[1])
	}
	if c.Next != (lane+1)%ports.Lanes || c.Capped != 1 {
		t.Errorf("Next, Capped = %d, %d; want %d, 1 (the batch did not fill; alice's lane gave PerLane)", c.Next, c.Capped, (lane+1)%ports.Lanes)
	}
}

func alarmIDsOf(as []domain.Alarm) []string {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

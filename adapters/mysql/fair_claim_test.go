package mysql

import (
	"cmp"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// laneOf is the lane migration 00008 gives owner's alarms: CRC32 (IEEE, as both servers
// compute it) modulo 64. Only tests compute it; TestLaneColumn checks it agrees.
func laneOf(owner string) int { return int(crc32.ChecksumIEEE([]byte(owner)) % ports.Lanes) }

// ownersInLanes returns n owner names, each in a lane of its own.
func ownersInLanes(n int) []string {
	var owners []string
	used := map[int]bool{}
	for i := 0; len(owners) < n; i++ {
		o := fmt.Sprintf("owner-%d", i)
		if !used[laneOf(o)] {
			used[laneOf(o)] = true
			owners = append(owners, o)
		}
	}
	return owners
}

// dueAlarm is an alarm of owner due at testNow - ago.
func dueAlarm(t *testing.T, owner string, ago time.Duration) domain.Alarm {
	t.Helper()
	return onceAlarm(t, owner, testNow.Add(-ago), `1`)
}

// The lane column is CRC32(owner) % 64 for every row, and spreads owners that differ in
// one character over many lanes.
func TestLaneColumn(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	ctx := t.Context()
	var as []domain.Alarm
	for i := range ports.Lanes {
		as = append(as, dueAlarm(t, fmt.Sprintf("owner-%02d", i), time.Second))
	}
	if err := s.CreateMany(ctx, as); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT owner, lane FROM alarms`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	lanes := map[int]bool{}
	for rows.Next() {
		var owner string
		var lane int
		if err := rows.Scan(&owner, &lane); err != nil {
			t.Fatal(err)
		}
		if lane != laneOf(owner) {
			t.Errorf("owner %q: lane %d, want CRC32 %% 64 = %d", owner, lane, laneOf(owner))
		}
		lanes[lane] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lanes) < 40 {
		t.Errorf("owner-00 .. owner-63 are in %d lanes, want at least 40", len(lanes))
	}
}

// fairWant is what a fair claim must return, computed the way ports.FairClaim says:
// due holds each lane's claimable alarms, oldest due first.
func fairWant(due map[int][]domain.Alarm, batch int, f ports.FairClaim) (ids []string, next, capped int) {
	var taken []domain.Alarm
	next = (f.Start + 1) % ports.Lanes
	for i := range ports.Lanes {
		lane := (f.Start + i) % ports.Lanes
		n := min(f.PerLane, batch-len(taken), len(due[lane]))
		taken = append(taken, due[lane][:n]...)
		if n == f.PerLane || len(taken) == batch {
			capped++
		}
		if len(taken) == batch {
			next = (lane + 1) % ports.Lanes
			break
		}
	}
	slices.SortFunc(taken, func(a, b domain.Alarm) int {
		return cmp.Or(a.NextFireAt.Compare(b.NextFireAt), strings.Compare(a.ID, b.ID))
	})
	for _, a := range taken {
		ids = append(ids, a.ID)
	}
	return ids, next, capped
}

// A fair claim takes at most PerLane from each lane in turn from Start until Batch,
// skips leased rows and rows another transaction holds, returns oldest due first with
// the lease stamped, and reports Next and Capped; claimed again, it continues.
func TestFairClaimTakesLanesInTurn(t *testing.T) {
	owners := ownersInLanes(4) // big, then three small ones
	big := owners[0]
	type claim struct {
		batch int
		fair  ports.FairClaim
	}
	for _, tc := range []struct {
		name   string
		counts []int // alarms per owner
		claims []claim
	}{
		{"per lane caps the backlog", []int{50, 3, 2, 1}, []claim{
			{10, ports.FairClaim{Start: laneOf(big), PerLane: 4}},
			{10, ports.FairClaim{Start: laneOf(big), PerLane: 4}},
		}},
		{"batch fills in the first lane", []int{50, 3, 2, 1}, []claim{
			{10, ports.FairClaim{Start: laneOf(big), PerLane: 20}},
			{10, ports.FairClaim{Start: (laneOf(big) + 1) % ports.Lanes, PerLane: 20}},
		}},
		{"batch fills part way through a lane", []int{50, 30, 30, 30}, []claim{
			{25, ports.FairClaim{Start: laneOf(big), PerLane: 10}},
			{25, ports.FairClaim{Start: laneOf(owners[2]), PerLane: 10}},
		}},
		{"one owner has all of it", []int{40, 0, 0, 0}, []claim{
			{30, ports.FairClaim{Start: (laneOf(big) + 7) % ports.Lanes, PerLane: 30}},
			{30, ports.FairClaim{Start: 0, PerLane: 30}},
			{30, ports.FairClaim{Start: 0, PerLane: 30}},
		}},
		{"many lanes per statement", []int{9, 9, 9, 9}, []claim{
			{20, ports.FairClaim{Start: 0, PerLane: 1}},
			{100, ports.FairClaim{Start: 5, PerLane: 3}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
			ctx := t.Context()
			var as []domain.Alarm
			for i, n := range tc.counts {
				for j := range n {
					as = append(as, dueAlarm(t, owners[i], time.Duration(1+j*len(owners)+i)*time.Second))
				}
			}
			// Not due yet, in the same lanes: never taken.
			for _, o := range owners {
				as = append(as, dueAlarm(t, o, -time.Minute))
			}
			if err := s.CreateMany(ctx, as); err != nil {
				t.Fatal(err)
			}
			claimed := map[string]bool{}
			for i, c := range tc.claims {
				due := map[int][]domain.Alarm{}
				for _, a := range as {
					if !claimed[a.ID] && !a.NextFireAt.After(testNow) {
						due[laneOf(a.Owner)] = append(due[laneOf(a.Owner)], a)
					}
				}
				for _, l := range due {
					slices.SortFunc(l, func(a, b domain.Alarm) int {
						return cmp.Or(a.NextFireAt.Compare(b.NextFireAt), strings.Compare(a.ID, b.ID))
					})
				}
				wantIDs, wantNext, wantCapped := fairWant(due, c.batch, c.fair)
				got, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: c.batch, Fair: &c.fair})
				if err != nil {
					t.Fatalf("claim %d: %v", i, err)
				}
				var gotIDs []string
				for _, a := range got.Alarms {
					gotIDs = append(gotIDs, a.ID)
					claimed[a.ID] = true
					if a.ClaimedBy != "w" || !a.ClaimedAt.Equal(micro(testNow)) {
						t.Errorf("claim %d: %s leased to %q at %s", i, a.ID, a.ClaimedBy, a.ClaimedAt)
					}
				}
				if !slices.Equal(gotIDs, wantIDs) || got.Next != wantNext || got.Capped != wantCapped {
					t.Errorf("claim %d %+v of %d: got %d alarms, Next %d, Capped %d; want %d, %d, %d\n got  %v\n want %v",
						i, c.fair, c.batch, len(gotIDs), got.Next, got.Capped, len(wantIDs), wantNext, wantCapped, gotIDs, wantIDs)
				}
			}
		})
	}
}

// Rows another transaction holds, and rows leased to another worker, are skipped, never
// waited for: the lane gives its next rows instead.
func TestFairClaimSkipsHeldRows(t *testing.T) {
	ctx := t.Context()
	owner := ownersInLanes(1)[0]
	s, as := seededStore(t, 6, func(i int) domain.Alarm {
		return dueAlarm(t, owner, time.Duration(10-i)*time.Second)
	})
	mustExec(t, s.db, `UPDATE alarms SET claimed_by = 'other', claimed_at = ? WHERE id = ?`, micro(testNow), as[1].ID)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT id FROM alarms WHERE id = ? FOR UPDATE`, as[0].ID); err != nil {
		t.Fatal(err)
	}

	got, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: 3,
		Fair: &ports.FairClaim{Start: laneOf(owner), PerLane: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range got.Alarms {
		ids = append(ids, a.ID)
	}
	if want := []string{as[2].ID, as[3].ID, as[4].ID}; !slices.Equal(ids, want) {
		t.Errorf("claimed %v, want %v (the held and the leased row skipped)", ids, want)
	}
	if got.Next != (laneOf(owner)+1)%ports.Lanes || got.Capped != 1 {
		t.Errorf("Next %d, Capped %d; want %d, 1", got.Next, got.Capped, (laneOf(owner)+1)%ports.Lanes)
	}
}

// fairTakeSQL sends n lanes at paddedSize(n) parts, padding with lane NULL.
func TestFairTakeSQLBuckets(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 16, 17, 63, 64} {
		lanes := make([]int, n)
		text, args := fairTakeSQL(lanes, testNow, testNow, 1)
		if parts := strings.Count(text, "FOR UPDATE SKIP LOCKED"); parts != paddedSize(n) || len(args) != 7*paddedSize(n) {
			t.Errorf("%d lanes: %d parts, %d args; want %d parts, 7 args each", n, parts, len(args), paddedSize(n))
		}
		if padding := slices.Index(args, any(nil)); n < paddedSize(n) && padding != 7*n {
			t.Errorf("%d lanes: first NULL argument at %d, want the padding's lane at %d", n, padding, 7*n)
		}
	}
}

// Fair claims run over the binary protocol too (interpolateParams=false: the lanes
// statement and the takes with their NULL padding lanes as binary parameters), and by
// default a take's text is prepared after its first use, as every batch statement is.
func TestFairClaimPrepared(t *testing.T) {
	for _, interpolate := range []string{"false", "true"} {
		t.Run("interpolateParams="+interpolate, func(t *testing.T) {
			s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)}, "interpolateParams", interpolate)
			s.db.SetMaxOpenConns(1) // so the session's counter is the store's
			ctx := t.Context()
			owners := ownersInLanes(3)
			var as []domain.Alarm
			for i := range 12 {
				as = append(as, dueAlarm(t, owners[i%len(owners)], time.Duration(i+1)*time.Second))
			}
			if err := s.CreateMany(ctx, as); err != nil {
				t.Fatal(err)
			}
			executed := func() int { return statusCounter(t, s.db, "SHOW SESSION STATUS LIKE 'Com_stmt_execute'") }
			before := 0
			for round := range 3 { // 3 lanes: a take of 4 parts, one padding
				if round == 1 {
					before = executed()
				}
				c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: 3,
					Fair: &ports.FairClaim{Start: 0, PerLane: 1}})
				if err != nil || len(c.Alarms) != 3 || len(countOwners(c.Alarms)) != 3 {
					t.Fatalf("round %d: claimed %d alarms of %d owners, %v; want one of each of 3", round, len(c.Alarms), len(countOwners(c.Alarms)), err)
				}
			}
			if executed() == before {
				t.Error("no prepared statement was executed: the claims ran as text")
			}
			s.stmts.mu.Lock()
			defer s.stmts.mu.Unlock()
			if interpolate == "true" && s.stmts.stmts[fairTakeTexts[2]] == nil {
				t.Error("the take of 4 parts was not prepared")
			}
		})
	}
}

func countOwners(as []domain.Alarm) map[string]int {
	n := map[string]int{}
	for _, a := range as {
		n[a.Owner]++
	}
	return n
}

package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/migrations"
	"github.com/chronoshq/chronos/ports"
)

// openTemp opens a migrated store on a new file, closed when t ends.
func openTemp(t testing.TB, clock ports.Clock) *Store {
	t.Helper()
	s, err := Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "f.db"), Options{Clock: clock, Migrate: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fillAlarms inserts n active once alarms of 64 owners, owner-00 to owner-63 in turn,
// due at 1, 2, ... n unix milliseconds.
func fillAlarms(t testing.TB, s *Store, n int) {
	t.Helper()
	mustExec(t, s, `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
		INSERT INTO alarms (id, owner, kind, fire_at, next_fire_at, scheduled_for, payload, status, delivery,
		                    max_failures, created_at, updated_at, lane)
		SELECT printf('%012d', n), o, 'once', n, n, n, X'7B7D', 'active', 'at_least_once', 5, 0, 0, `+laneSQL("o")+`
		FROM (SELECT n, printf('owner-%02d', n % 64) AS o FROM g)`, n)
}

// pinnedLanes are the lanes of owner-00 to owner-63. The lane expression must never
// change (the index holds the lanes it computed), and these show it has not.
var pinnedLanes = [ports.Lanes]int{
	56, 13, 34, 58, 15, 36, 60, 17, 38, 59, 30, 51, 8, 32, 53, 10, 34, 55, 12, 33, 4, 25, 46, 6, 27, 48, 8, 29, 50, 7, 42, 63,
	20, 44, 1, 22, 46, 3, 24, 45, 16, 37, 58, 18, 39, 60, 20, 41, 62, 19, 54, 11, 32, 56, 13, 34, 58, 15, 36, 57, 28, 49, 6, 30,
}

// The lane column spreads owners that differ in one character (owner-00..63 over at
// least 40 lanes), is an integer lane for any text, and is what it always was.
func TestLanes(t *testing.T) {
	s := openTemp(t, nil)
	fillAlarms(t, s, ports.Lanes)
	weird := []string{"a", "é", "用户名", "🦀🦀", strings.Repeat("long owner ", 40), "\x00x", "\xff\xfe"}
	for i, o := range weird {
		if _, err := s.writer.Exec(`INSERT INTO alarms (id, owner, kind, fire_at, next_fire_at, scheduled_for, payload, status,
			delivery, max_failures, created_at, updated_at) VALUES (?, ?, 'once', 1, 1, 1, X'7B7D', 'active', 'at_least_once', 5, 0, 0)`,
			fmt.Sprintf("w%d", i), o); err != nil {
			t.Fatalf("owner %q: %v", o, err)
		}
	}
	rows, err := s.reader.Query(`SELECT owner, lane, typeof(lane) FROM (SELECT id, owner, ` + laneSQL("owner") + ` AS lane FROM alarms) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got [ports.Lanes]int
	distinct, most := map[int]int{}, 0
	for i := 0; rows.Next(); i++ {
		var owner, typ string
		var lane int
		if err := rows.Scan(&owner, &lane, &typ); err != nil {
			t.Fatal(err)
		}
		if typ != "integer" || lane < 0 || lane >= ports.Lanes {
			t.Errorf("owner %q: lane %d (%s), want an integer 0..%d", owner, lane, typ, ports.Lanes-1)
		}
		var n int
		if _, err := fmt.Sscanf(owner, "owner-%02d", &n); err == nil && i < ports.Lanes {
			got[n] = lane
			distinct[lane]++
			most = max(most, distinct[lane])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("owner-00..63: %d distinct lanes, at most %d owners in one", len(distinct), most)
	if len(distinct) < 40 {
		t.Errorf("owner-00..63 fall in %d lanes, want at least 40", len(distinct))
	}
	if got != pinnedLanes {
		t.Errorf("lanes of owner-00..63 changed:\n got %#v\nwant %#v", got, pinnedLanes)
	}
}

// Every insert of the store writes an alarm's lane: a create (CreateBatch), a bulk
// load (CreateMany) and Apply's notice (insertAlarmSQL).
func TestInsertsWriteTheLane(t *testing.T) {
	s := openTemp(t, nil)
	ctx := t.Context()
	alarm := func(id, owner string) domain.Alarm {
		at := time.Unix(1e9, 0)
		a, err := domain.NewAlarm(id, domain.Spec{Owner: owner, Kind: domain.KindOnce, FireAt: &at},
			time.Unix(1e9, 0), domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	owners := []string{"a", "owner-07", "用户名", strings.Repeat("long owner ", 40)}
	var created, bulk []domain.Alarm
	for i, o := range owners {
		created = append(created, alarm(fmt.Sprintf("0190f0c0-0000-7000-8000-00000000010%d", i), o))
		bulk = append(bulk, alarm(fmt.Sprintf("0190f0c0-0000-7000-8000-00000000020%d", i), o))
	}
	if _, err := s.CreateBatch(ctx, created); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateMany(ctx, bulk); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(insertAlarmSQL, s.AlarmArgs(alarm("0190f0c0-0000-7000-8000-000000000300", "notices"))...); err != nil {
		t.Fatal(err)
	}
	var n, laned int
	if err := s.reader.QueryRow(`SELECT count(*), count(CASE WHEN lane = `+laneSQL("owner")+` THEN 1 END) FROM alarms`).Scan(&n, &laned); err != nil {
		t.Fatal(err)
	}
	if want := 2*len(owners) + 1; n != want || laned != n {
		t.Errorf("%d alarms (want %d), %d of them in their owner's lane; want all", n, want, laned)
	}
}

// laneSQL's hash is the expression migration 00008 indexed and 00016 wrote to every
// alarm's lane column, word for word.
func TestLaneSQLIsTheMigrations(t *testing.T) {
	for _, name := range []string{"00008_lanes.sql", "00016_lane_column.sql"} {
		m, err := fs.ReadFile(migrations.SQLite(), name)
		if err != nil {
			t.Fatal(err)
		}
		if words := strings.Fields; !strings.Contains(strings.Join(words(string(m)), " "), strings.Join(words(laneSQL("owner")), " ")) {
			t.Errorf("migration %s does not hold laneSQL's hash:\n%s", name, laneSQL("owner"))
		}
	}
}

// The lane an insert binds (laneOf, in Go) is the one 00016's backfill computed in SQL
// (laneSQL) for every UTF-8 owner: an owner's alarms inserted after 00016 join the lane
// its older alarms were given. Owners of every length around the six characters the
// hash reads from each end, and characters of one to four bytes.
func TestLaneOfIsLaneSQL(t *testing.T) {
	s := openTemp(t, nil)
	lane, err := s.reader.Prepare(`SELECT ` + laneSQL("?1"))
	if err != nil {
		t.Fatal(err)
	}
	defer lane.Close()
	owners := []string{"", "a", "é", "用户名", "🦀🦀", strings.Repeat("long owner ", 40), "tenant-fast", "owner-07"}
	alphabet := []rune("az09-_.éü用户🦀Ω ")
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 16; n++ {
		for range 40 {
			r := make([]rune, n)
			for i := range r {
				r[i] = alphabet[rnd.IntN(len(alphabet))]
			}
			owners = append(owners, string(r))
		}
	}
	for _, o := range owners {
		var want int
		if err := lane.QueryRow(o).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := laneOf(o); got != want {
			t.Errorf("owner %q: laneOf %d, laneSQL %d", o, got, want)
		}
	}
}

// A fair claim's choice probes alarms_lane_due once per lane, each from the lane's
// oldest due alarm, stopping after the rows it takes (no sort, no scan of the table),
// and its lease finds the rows by primary key, whatever the planner knows:
// on an empty database, on 20,000 alarms never analyzed, and on the same analyzed; the
// plain claim, NextDue and the due backlog count probe every lane too.
func TestFairClaimPlan(t *testing.T) {
	s := openTemp(t, nil)
	eachPlannerState(t, s, func() { fillAlarms(t, s, 20000) }, func(state string) {
		p := queryPlan(t, s, fairPickSQL, 5, 10000, 0, 10, 100)
		probe := "SEARCH alarms USING INDEX alarms_lane_due (lane=? AND next_fire_at<?)"
		if n := strings.Count(p, probe); n != ports.Lanes || scansTable(p) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("%s: fair claim plan has %d probes %q of %d, or sorts or scans: %s", state, n, probe, ports.Lanes, p)
		}
		p = queryPlan(t, s, claimIDsSQL, "w", 10000, `["a","b"]`)
		if !strings.Contains(p, "INDEX sqlite_autoindex_alarms_1 (id=?)") || scansTable(p) {
			t.Errorf("%s: the fair claim's lease plan %q does not find rows by id", state, p)
		}
		if p = queryPlan(t, s, claimSQL, "w", 10000, 0, 10); !mergesLanes(p, laneRangeProbe) {
			t.Errorf("%s: plain claim plan %q does not merge the lanes of alarms_lane_due in order", state, p)
		}
		if p = queryPlan(t, s, nextDueSQL); !mergesLanes(p, laneProbe) {
			t.Errorf("%s: NextDue's plan %q does not merge the lanes of alarms_lane_due in order", state, p)
		}
		if p = queryPlan(t, s, countDueSQL, 10000, 0); !lanesProbed(p, laneRangeProbe) {
			t.Errorf("%s: the due backlog count's plan %q does not read each lane's due range", state, p)
		}
	})
}

// BenchmarkClaim1000 is a claim of 1,000 from 32,000 due alarms of 64 owners (and as
// many not yet due): plain (the 64 lanes merged), plain with all of them one owner's
// (one lane gives every row), fair with a share of 32 a lane (every lane probed), fair
// with the whole batch a lane (the first lanes with alarms fill it); and a claim with
// nothing due, plain and fair (every lane probed, empty). Leases of 0 let every claim
// take the same rows again.
func BenchmarkClaim1000(b *testing.B) {
	ctx := context.Background()
	now := time.UnixMilli(32000).UTC()
	s := openTemp(b, fixedClock{now})
	fillAlarms(b, s, 64000)
	oneOwner := openTemp(b, fixedClock{now})
	fillAlarms(b, oneOwner, 64000)
	if _, err := oneOwner.writer.ExecContext(ctx, `UPDATE alarms SET owner = 'burst'`); err != nil {
		b.Fatal(err)
	}
	empty := openTemp(b, fixedClock{now})
	for _, c := range []struct {
		name string
		s    *Store
		fair *ports.FairClaim
		want int
	}{
		{"plain", s, nil, 1000},
		{"plain one owner", oneOwner, nil, 1000},
		{"fair per lane 32", s, &ports.FairClaim{PerLane: 32}, 1000},
		{"fair per lane 1000", s, &ports.FairClaim{PerLane: 1000}, 1000},
		{"plain nothing due", empty, nil, 0},
		{"fair nothing due", empty, &ports.FairClaim{PerLane: 32}, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := ports.ClaimParams{Worker: "w", Batch: 1000, Fair: c.fair}
			for b.Loop() {
				got, err := c.s.ClaimDue(ctx, p)
				if err != nil || len(got.Alarms) != c.want {
					b.Fatalf("ClaimDue = %d alarms, %v; want %d", len(got.Alarms), err, c.want)
				}
				if c.fair != nil {
					p.Fair = &ports.FairClaim{Start: got.Next, PerLane: c.fair.PerLane}
				}
			}
		})
	}
}

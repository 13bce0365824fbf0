package mysql

import (
	"context"
	"database/sql"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A fair claim (ports.FairClaim) visits lanes Start, Start+1, ... and takes at most
// PerLane from each until Batch are taken. Neither server can stop a UNION part way:
// MariaDB runs every part of a UNION ALL to the end before a LIMIT around it applies
// (no LATERAL either), so one statement over all 64 lanes would lock up to PerLane rows
// in every lane and hand out only Batch. So the claim, in its one transaction:
//
//  1. finds the lanes that have due alarms (dueLanesSQL, one dive per lane);
//  2. takes from them in lane order, several lanes per statement (fairTakeSQL), never
//     more lanes than could each give PerLane without passing Batch, so no statement
//     locks a row the claim does not hand out;
//  3. stamps the lease, as the plain claim does.
//
// One owner's backlog, or owners whose shares fill the batch, is one take; more takes
// only when PerLane is large beside the rows the busy lanes have (docs/mysql.md).

// dueLanesSQL lists the lanes that have active alarms due by now, leased or not, with
// each one's oldest due time: a loose index scan of alarms_lane_due ("Using index for
// group-by"), one dive per lane, whatever the backlogs. A lane whose due alarms are all
// leased is listed, and its take finds nothing.
const dueLanesSQL = `SELECT lane, MIN(next_fire_at) FROM alarms FORCE INDEX (alarms_lane_due)
	WHERE status = 'active' AND next_fire_at <= ?
	GROUP BY status, lane ORDER BY NULL`

// laneTakeSQL takes from one lane: a non-locking walk of the lane's due alarms in due
// order (a range of alarms_lane_due, pinned), then a locking read of the chosen rows by
// primary key that skips locked rows and tests the claim's condition again under the
// lock (claimWalkFactor says why the walk must not lock). STRAIGHT_JOIN and FORCE INDEX
// (PRIMARY) pin the plan to "walk first, then each chosen row by primary key": left
// free, MariaDB planned the locking read as a range of the due index when it expected
// few rows due, which would lock its way along the index again. Only clustered index
// records are locked, and those that fail the WHERE are released at once (READ
// COMMITTED), so nothing is held but what is taken. The walk chooses claimWalkFactor
// times what the locking read takes, so a concurrent claimer in the same lane fills its
// share from the rest. It returns the lane too, for Claimed.Next and Capped.
var laneTakeSQL = `(SELECT ` + qualified("a", alarmColumns) + `, a.lane
	FROM (SELECT id FROM alarms FORCE INDEX (alarms_lane_due)
		WHERE status = 'active' AND lane = ? AND next_fire_at <= ? AND (claimed_at IS NULL OR claimed_at <= ?)
		ORDER BY next_fire_at, id
		LIMIT ?) candidates
	STRAIGHT_JOIN alarms a FORCE INDEX (PRIMARY) ON a.id = candidates.id
	WHERE a.status = 'active' AND a.next_fire_at <= ? AND (a.claimed_at IS NULL OR a.claimed_at <= ?)
	LIMIT ?
	FOR UPDATE SKIP LOCKED)`

// fairTakeTexts[i] takes from 1<<i lanes: laneTakeSQL that many times, UNION ALL. A take
// of n lanes is sent at paddedSize(n) parts, the rest for lane NULL, which matches nothing
// (the server sees an impossible WHERE), so 7 prepared texts serve every take.
var fairTakeTexts = func() []string {
	var texts []string
	for n := 1; n <= ports.Lanes; n <<= 1 {
		texts = append(texts, strings.Repeat(laneTakeSQL+"\nUNION ALL\n", n-1)+laneTakeSQL)
	}
	return texts
}()

// fairTakeSQL is the text that takes from n lanes, and its arguments: each lane's
// laneTakeSQL parameters, taking at most per from each.
func fairTakeSQL(lanes []int, now, expired time.Time, per int) (string, []any) {
	n := paddedSize(len(lanes))
	args := make([]any, 0, 7*n)
	for i := range n {
		var lane any // NULL: a padding part
		if i < len(lanes) {
			lane = lanes[i]
		}
		args = append(args, lane, now, expired, claimWalkFactor*per, now, expired, per)
	}
	return fairTakeTexts[bits.TrailingZeros(uint(n))], args
}

// lockFair chooses and locks the batch of a fair claim (see above), counting in taken
// the alarms of each lane.
func (s *Store) lockFair(ctx context.Context, tx *sql.Tx, now, expired time.Time, batch int, f ports.FairClaim, taken *claims.Taken) (
	[]domain.Alarm, error) {
	due, err := dueLanes(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	var order []int // the due lanes, in visiting order
	for i := range ports.Lanes {
		if lane := claims.Lane(f.Start, i); !due[lane].IsZero() {
			order = append(order, lane)
		}
	}
	return s.takeLanes(ctx, tx, nil, order, now, expired, f.PerLane, batch, taken)
}

// lockShared chooses and locks the batch of a plain claim: every lane with due alarms
// gets an even share of the batch, each lane's oldest first, and the batch left over
// by lanes with fewer goes in the same way to those that gave their whole share, until
// the batch is full or no lane has more. So a plain claim takes Batch alarms whenever
// that many are claimable, and one lane's backlog takes what the others leave, never
// all of it while another lane waits. The lanes go in the order of their oldest due
// alarm, so when a share is cut short by the batch, the oldest lanes are served. The
// order across lanes is not strictly oldest due first (that would be a 64-way merge
// MariaDB cannot stop part way: it runs every part of a UNION to its end), which
// ports.ClaimParams allows. One owner's backlog, or owners whose shares fill the batch,
// is the lane listing and one take; a backlog beside quiet lanes, two or three.
//
// Each round's alarms are leased to worker before the next round: SKIP LOCKED does not
// skip the rows this transaction holds, and the lease is what keeps the next round's
// walk of a lane from choosing them again.
func (s *Store) lockShared(ctx context.Context, tx *sql.Tx, now, expired time.Time, batch int, worker string) ([]domain.Alarm, error) {
	due, err := dueLanes(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	var order []int
	for lane := range ports.Lanes {
		if !due[lane].IsZero() {
			order = append(order, lane)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return due[a].Compare(due[b]) })
	var (
		alarms []domain.Alarm
		taken  claims.Taken
	)
	for len(alarms) < batch && len(order) > 0 {
		share := (batch - len(alarms) + len(order) - 1) / len(order)
		before, n := taken, len(alarms)
		if alarms, err = s.takeLanes(ctx, tx, alarms, order, now, expired, share, batch-len(alarms), &taken); err != nil {
			return nil, err
		}
		if err := stampLease(ctx, s.batch(tx), alarms[n:], worker, now); err != nil {
			return nil, err
		}
		more := order[:0] // the lanes that gave their whole share may have more
		for _, lane := range order {
			if taken[lane]-before[lane] == share {
				more = append(more, lane)
			}
		}
		order = more
	}
	return alarms, nil
}

// takeLanes takes from the lanes of order, in that order, at most per claimable alarms
// from each and at most left in all, appending them to alarms and counting them by lane
// in taken. Several lanes go in one statement (fairTakeSQL), never more than could each
// give per without passing left, so no statement locks a row the claim does not hand
// out.
func (s *Store) takeLanes(ctx context.Context, tx *sql.Tx, alarms []domain.Alarm, order []int, now, expired time.Time,
	per, left int, taken *claims.Taken) ([]domain.Alarm, error) {
	scan := newAlarmScanner()
	row := &lanedRow{}
	for left > 0 && len(order) > 0 {
		per := min(per, left)
		chunk := order[:min(len(order), left/per)] // even if each gives per: at most left
		order = order[len(chunk):]
		text, args := fairTakeSQL(chunk, now, expired, per)
		rows, err := s.batch(tx).query(ctx, text, args...)
		if err != nil {
			return nil, err
		}
		row.Rows = rows
		for rows.Next() {
			a, err := scan.Scan(row)
			if err != nil {
				rows.Close()
				return nil, err
			}
			alarms = append(alarms, a)
			taken[row.lane]++
			left--
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return alarms, nil
}

// dueLanes reads dueLanesSQL: each lane's oldest due alarm, leased or not; zero for a
// lane with none.
func dueLanes(ctx context.Context, tx *sql.Tx, now time.Time) (*[ports.Lanes]time.Time, error) {
	rows, err := tx.QueryContext(ctx, dueLanesSQL, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var due [ports.Lanes]time.Time
	for rows.Next() {
		var lane int
		var first time.Time
		if err := rows.Scan(&lane, &first); err != nil {
			return nil, err
		}
		due[lane] = first
	}
	return &due, rows.Err()
}

// everyLane lists every lane, 0 to ports.Lanes-1, for "lane IN (...)": a range on
// alarms_lane_due after status that must go on to next_fire_at becomes one range per
// lane.
var everyLane = func() string {
	lanes := make([]string, ports.Lanes)
	for l := range lanes {
		lanes[l] = strconv.Itoa(l)
	}
	return strings.Join(lanes, ", ")
}()

// lanedRow is a row of a fair take for the alarm scanner: the alarm's columns, then
// its lane, read into lane.
type lanedRow struct {
	*sql.Rows
	lane int
	dest []any
}

func (r *lanedRow) Scan(dest ...any) error {
	r.dest = append(append(r.dest[:0], dest...), &r.lane)
	return r.Rows.Scan(r.dest...)
}

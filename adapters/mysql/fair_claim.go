package mysql

import (
	"context"
	"database/sql"
	"math/bits"
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

// dueLanesSQL lists the lanes that have active alarms due by now, leased or not: a loose
// index scan of alarms_lane_due ("Using index for group-by"), one dive per lane, whatever
// the backlogs. MIN() is what lets the server jump from lane to lane; its value is not
// used. A lane whose due alarms are all leased is listed, and its take finds nothing.
const dueLanesSQL = `SELECT lane, MIN(next_fire_at) FROM alarms FORCE INDEX (alarms_lane_due)
	WHERE status = 'active' AND next_fire_at <= ?
	GROUP BY status, lane ORDER BY NULL`

// laneTakeSQL takes from one lane what claimSQL takes from the due range: a non-locking
// walk of the lane's due alarms in due order (a range of alarms_lane_due, pinned: left
// free, MariaDB read alarms_due and filtered by lane), then a locking read of the chosen
// rows by primary key that skips locked rows and tests the claim's condition again under
// the lock. claimSQL says why the walk must not lock. The walk chooses claimWalkFactor
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
// of n lanes is sent at bucket(n) parts, the rest for lane NULL, which matches nothing
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
	n := bucket(len(lanes))
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
	alarms []domain.Alarm, err error) {
	due, err := dueLanes(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	var order []int // the due lanes, in visiting order
	for i := range ports.Lanes {
		if lane := claims.Lane(f.Start, i); due[lane] {
			order = append(order, lane)
		}
	}
	scan := newAlarmScanner()
	row := &lanedRow{}
	for left := batch; left > 0 && len(order) > 0; {
		per := min(f.PerLane, left)
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

// dueLanes reads dueLanesSQL: which lanes have due alarms.
func dueLanes(ctx context.Context, tx *sql.Tx, now time.Time) (*[ports.Lanes]bool, error) {
	rows, err := tx.QueryContext(ctx, dueLanesSQL, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var due [ports.Lanes]bool
	for rows.Next() {
		var lane int
		var first time.Time
		if err := rows.Scan(&lane, &first); err != nil {
			return nil, err
		}
		due[lane] = true
	}
	return &due, rows.Err()
}

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

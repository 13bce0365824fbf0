package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// fairPickSQL chooses a fair claim's alarms without writing: for each lane from ?1 on
// in turn ((?1 + i) % 64, returned as i), up to ?4 claimable alarms, oldest due first,
// until ?5 are chosen. Each branch of the UNION ALL is one probe of alarms_lane_due that
// stops after the rows it gives; SQLite runs the branches in order and stops at the
// outer LIMIT, so the lanes after the one the batch fills up in are never read. One
// statement, not one per lane: each statement costs far more than an empty probe.
var fairPickSQL = func() string {
	branches := make([]string, ports.Lanes)
	for i := range branches {
		branches[i] = fmt.Sprintf(`SELECT * FROM (SELECT %d AS i, id FROM alarms
			WHERE %s = (?1 + %d) %% %d AND status = 'active' AND next_fire_at <= ?2
			  AND (claimed_at IS NULL OR claimed_at <= ?3)
			ORDER BY next_fire_at, id LIMIT ?4 + 0)`, i, laneExpr, i, ports.Lanes)
	}
	return `SELECT i, id FROM (` + strings.Join(branches, ` UNION ALL `) + `) LIMIT ?5 + 0`
}()

// claimIDsSQL leases the alarms fairPickSQL chose, by primary key, those of them that
// are still claimable: the choice was read on the reader pool, outside the write lock,
// so a chosen alarm may since have been leased by another claim or fired by an apply.
const claimIDsSQL = `UPDATE alarms SET claimed_by = ?1, claimed_at = ?2
	WHERE id IN (SELECT value FROM json_each(?3))
	  AND status = 'active' AND next_fire_at <= ?2 AND (claimed_at IS NULL OR claimed_at <= ?4)
	RETURNING ` + alarmColumns

// fairChoice is a fair claim's choice: the ids chosen (as a JSON array, claimIDsSQL's
// argument) and the lane each came from.
type fairChoice struct {
	ids  string
	lane map[string]int
}

// chooseFair reads a fair claim's choice on the reader pool, before the claim takes the
// writer: the 64 probes of alarms_lane_due then run beside the transaction holding the
// write lock, not inside the claim's own, and a claim that finds nothing due never takes
// the lock at all.
func (s *Store) chooseFair(ctx context.Context, p ports.ClaimParams) (fairChoice, error) {
	now := s.now()
	rows, err := s.reads.fairPick.QueryContext(ctx,
		p.Fair.Start, toDB(now), toDB(trunc(now.Add(-p.Lease))), p.Fair.PerLane, p.Batch)
	if err != nil {
		return fairChoice{}, mapError(err)
	}
	defer rows.Close()
	var ids []string
	c := fairChoice{lane: map[string]int{}}
	for rows.Next() {
		var i int
		var id string
		if err := rows.Scan(&i, &id); err != nil {
			return fairChoice{}, mapError(err)
		}
		c.lane[id] = claims.Lane(p.Fair.Start, i)
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return fairChoice{}, mapError(err)
	}
	if len(ids) > 0 {
		list, err := json.Marshal(ids)
		if err != nil {
			return fairChoice{}, err
		}
		c.ids = string(list)
	}
	return c, nil
}

// leaseFair leases in tx what c chose and is still claimable, counted by lane in taken.
func (s *Store) leaseFair(ctx context.Context, tx *sql.Tx, p ports.ClaimParams, now, expired time.Time, c fairChoice, taken *claims.Taken) ([]domain.Alarm, error) {
	if c.ids == "" {
		return nil, nil
	}
	rows, err := tx.StmtContext(ctx, s.stmts.claimIDs).QueryContext(ctx, p.Worker, toDB(now), c.ids, toDB(expired))
	if err != nil {
		return nil, mapError(err)
	}
	alarms, err := scanAlarms(rows)
	if err != nil {
		return nil, mapError(err)
	}
	for _, a := range alarms {
		taken[c.lane[a.ID]]++
	}
	return alarms, nil
}

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
			WHERE lane = (?1 + %d) %% %d AND status = 'active' AND next_fire_at <= ?2
			  AND (claimed_at IS NULL OR claimed_at <= ?3)
			ORDER BY next_fire_at, id LIMIT ?4 + 0)`, i, i, ports.Lanes)
	}
	return `SELECT i, id FROM (` + strings.Join(branches, ` UNION ALL `) + `) LIMIT ?5 + 0`
}()

// claimIDsSQL leases the alarms fairPickSQL chose, by primary key, in the same
// transaction (the write lock held since the choice keeps them claimable).
const claimIDsSQL = `UPDATE alarms SET claimed_by = ?1, claimed_at = ?2
	WHERE id IN (SELECT value FROM json_each(?3))
	RETURNING ` + alarmColumns

// claimFair takes a fair claim's alarms, counted by lane in taken: the choice, then the
// lease.
func (s *Store) claimFair(ctx context.Context, tx *sql.Tx, p ports.ClaimParams, now, expired time.Time, taken *claims.Taken) ([]domain.Alarm, error) {
	rows, err := tx.StmtContext(ctx, s.stmts.fairPick).QueryContext(ctx,
		p.Fair.Start, toDB(now), toDB(expired), p.Fair.PerLane, p.Batch)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var i int
		var id string
		if err := rows.Scan(&i, &id); err != nil {
			return nil, mapError(err)
		}
		taken[claims.Lane(p.Fair.Start, i)]++
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, mapError(err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	leased, err := tx.StmtContext(ctx, s.stmts.claimIDs).QueryContext(ctx, p.Worker, toDB(now), string(list))
	if err != nil {
		return nil, mapError(err)
	}
	alarms, err := scanAlarms(leased)
	return alarms, mapError(err)
}

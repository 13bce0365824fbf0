package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// CreateBatch creates many alarms in one transaction, each idempotent on its own key.
//
// First the ids that are already stored are read: those items are ErrConflict and left
// out. The rest go in with multi-row INSERTs whose ON DUPLICATE KEY UPDATE changes
// nothing, so a row whose owner's idempotency key is taken (stored, or by an earlier
// row of the batch) is skipped instead of failing the statement; the duplicate check
// waits for a concurrent transaction inserting the twin, so the read that follows (READ
// COMMITTED, a new statement) sees it. That read, by (owner, key), tells the keyed
// items apart: the key's row is the item's own (created) or another alarm (deduped).
// Ids are UUIDv7 made by the API, so a second transaction inserting one of the batch's
// ids between the first read and the INSERT is not a case that arises.
func (s *Store) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	if len(as) == 0 {
		return out, nil
	}
	stored := make([]domain.Alarm, len(as))
	for i, a := range as {
		stored[i] = storedAlarm(a)
	}
	defer s.stmts.prepareQueued(ctx) // once no transaction is open
	err := s.inTx(ctx, func(sqlTx *sql.Tx) error {
		tx := s.batch(sqlTx)
		taken, err := storedIDs(ctx, tx, stored)
		if err != nil {
			return err
		}
		var fresh []domain.Alarm
		for _, a := range stored {
			if !taken[a.ID] {
				taken[a.ID] = true // a repeated id: the first item has it
				fresh = append(fresh, a)
			}
		}
		if err := insertAll(ctx, tx, fresh, true); err != nil {
			return err
		}
		byKey, err := alarmsByKey(ctx, tx, fresh)
		if err != nil {
			return err
		}
		inFresh := make(map[string]bool, len(fresh))
		for _, a := range fresh {
			inFresh[a.ID] = true
		}
		for i, a := range stored {
			twin, keyed := byKey[[2]string{a.Owner, a.IdempotencyKey}]
			switch {
			case !inFresh[a.ID]:
				out[i] = ports.CreateResult{Err: fmt.Errorf("mysql: alarm id %q exists: %w", a.ID, ports.ErrConflict)}
				continue
			case a.IdempotencyKey == "" || (keyed && twin.ID == a.ID):
				out[i] = ports.CreateResult{Alarm: a}
			case keyed:
				out[i] = ports.CreateResult{Alarm: twin, Deduped: true}
			default:
				// The key's alarm was deleted between the skip and the read (retention).
				out[i] = ports.CreateResult{Err: fmt.Errorf("mysql: idempotency key %q is taken, but its alarm vanished: %w", a.IdempotencyKey, ports.ErrConflict)}
			}
			inFresh[a.ID] = false // a later item with the same id is not this one
		}
		return nil
	})
	if err != nil {
		return nil, mapError(err)
	}
	return out, nil
}

// storedIDs reads which of the batch's ids are already stored.
func storedIDs(ctx context.Context, tx batchTx, as []domain.Alarm) (map[string]bool, error) {
	out := make(map[string]bool, len(as))
	for chunk := range slices.Chunk(as, alarmsPerInsert) {
		ids := make([]string, len(chunk))
		for i, a := range chunk {
			ids[i] = a.ID
		}
		args, marks := paddedIn(ids)
		rows, err := tx.query(ctx, `SELECT id FROM alarms WHERE id IN (`+marks+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id []byte
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			out[string(id)] = true
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// alarmsByKey reads the alarms of the batch's (owner, idempotency key) pairs, one query
// per owner (a batch from the API has one) on alarms_owner_idempotency.
func alarmsByKey(ctx context.Context, tx batchTx, as []domain.Alarm) (map[[2]string]domain.Alarm, error) {
	keys := map[string][]string{}
	for _, a := range as {
		if a.IdempotencyKey != "" {
			keys[a.Owner] = append(keys[a.Owner], a.IdempotencyKey)
		}
	}
	out := map[[2]string]domain.Alarm{}
	for owner, ks := range keys {
		for chunk := range slices.Chunk(ks, alarmsPerInsert) {
			args, marks := paddedIn(chunk)
			rows, err := tx.query(ctx, `SELECT `+alarmColumns+` FROM alarms WHERE owner = ? AND idempotency_key IN (`+
				marks+`)`, append([]any{owner}, args...)...)
			if err != nil {
				return nil, err
			}
			found, err := scanAlarms(rows)
			if err != nil {
				return nil, err
			}
			for _, a := range found {
				out[[2]string{a.Owner, a.IdempotencyKey}] = a
			}
		}
	}
	return out, nil
}

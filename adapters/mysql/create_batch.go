package mysql

import (
	"context"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// insertBatch is the engine's InsertBatch.
//
// First the ids that are already stored are read: those items are left out. The rest
// go in with multi-row INSERTs whose ON DUPLICATE KEY UPDATE changes nothing, so a row
// whose owner's idempotency key is taken (stored, or by an earlier row of the batch) is
// skipped instead of failing the statement; the duplicate check waits for a concurrent
// transaction inserting the twin, so the read that follows (READ COMMITTED, a new
// statement) sees it. That read, of every key of the batch, tells the keyed items
// apart: the key's row is the item's own (inserted) or another alarm (the engine
// dedupes to it); the engine needs no read of its own (AlarmsByKey is nil). Ids are
// UUIDv7 made by the API, so a second transaction inserting one of the batch's ids
// between the first read and the INSERT is not a case that arises.
func (s *Store) insertBatch(ctx context.Context, db sqlstore.DB, as []domain.Alarm) (map[string]bool, []domain.Alarm, error) {
	tx := s.batch(db.(sqlstore.SQLTx).Tx)
	taken, err := storedIDs(ctx, tx, as)
	if err != nil {
		return nil, nil, err
	}
	fresh := slices.DeleteFunc(slices.Clone(as), func(a domain.Alarm) bool { return taken[a.ID] })
	if err := s.insertAll(ctx, tx, fresh, true); err != nil {
		return nil, nil, err
	}
	found, err := alarmsByKey(ctx, tx, as)
	if err != nil {
		return nil, nil, err
	}
	keyOf := make(map[sqlstore.OwnerKey]string, len(found))
	for _, a := range found {
		keyOf[sqlstore.OwnerKey{Owner: a.Owner, Key: a.IdempotencyKey}] = a.ID
	}
	inserted := make(map[string]bool, len(fresh))
	for _, a := range fresh {
		if a.IdempotencyKey == "" || keyOf[sqlstore.OwnerKey{Owner: a.Owner, Key: a.IdempotencyKey}] == a.ID {
			inserted[a.ID] = true
		}
	}
	return inserted, found, nil
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
		err = sqlstore.MarkIDs(rows, out)
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// alarmsByKey reads the alarms of the batch's (owner, idempotency key) pairs, one query
// per owner (a batch from the API has one) on alarms_owner_idempotency.
func alarmsByKey(ctx context.Context, tx batchTx, as []domain.Alarm) ([]domain.Alarm, error) {
	keys := map[string][]string{}
	for _, a := range as {
		if a.IdempotencyKey != "" {
			keys[a.Owner] = append(keys[a.Owner], a.IdempotencyKey)
		}
	}
	var out []domain.Alarm
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
			out = append(out, found...)
		}
	}
	return out, nil
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// expiredAlarmsSQL deletes a batch of expired terminal alarms and returns their ids. It
// is shaped like the claim (claim.go): the inner SELECT walks alarms_terminal_idx from
// the oldest change and stops after the batch, locking each row it takes and skipping
// rows someone else holds (an admin retry, an owner's action); the DELETE takes those
// rows by ctid (a Tid Scan) and nothing else: repeating the WHERE outside gave a generic
// plan made on an empty table an index path for the DELETE too, which walked every expired
// row to find the batch's ctids (TestPlansWithoutStatistics). The locking read has
// already re-checked the WHERE on the row version it locked (a row changed meanwhile and
// no longer expired is not locked, so not returned), and a locked version cannot change
// before this statement ends. A row still leased (claimed_by set) is never deleted: its
// worker may yet apply.
const expiredAlarmsSQL = `
DELETE FROM alarms
WHERE ctid = ANY(ARRAY(
	SELECT ctid FROM alarms
	WHERE status IN ('fired', 'cancelled', 'failed') AND updated_at < $1 AND claimed_by IS NULL
	ORDER BY updated_at
	LIMIT $2
	FOR UPDATE SKIP LOCKED
))
RETURNING id`

// eventsOfSQL deletes the history of alarms just deleted (alarm_events_pkey prefix).
const eventsOfSQL = `DELETE FROM alarm_events WHERE alarm_id = ANY($1::text[])`

// deleteEventsOf is DeleteChosen: the alarm rows are gone already (expiredAlarmsSQL,
// deleteByIDSQL), so it deletes the events of the ids deleted. A later statement, not a
// CTE of the first: its snapshot is taken after the DELETE's row locks were granted, so
// it sees every event an Apply committed to these alarms meanwhile (the migration
// explains).
func deleteEventsOf(ctx context.Context, tx sqlstore.DB, ids []string) (ports.Deleted, error) {
	n, err := tx.Exec(ctx, eventsOfSQL, ids)
	return ports.Deleted{Alarms: len(ids), Events: int(n)}, err
}

// trimEventsSQL is one step of the events sweep. It walks alarms_pkey after the cursor
// for $2 alarms; for each, the id of its ($4+1)-th newest event (alarm_events_pkey,
// backwards, at most $4+1 entries) bounds what the cap keeps; then it deletes, through
// the same index, the events older than $3 or below that bound. It returns what it
// deleted, the last alarm id it covered and how many alarms it covered.
const trimEventsSQL = `
WITH a AS (
	SELECT id FROM alarms WHERE id > $1 ORDER BY id LIMIT $2
), cut AS (
	SELECT a.id,
	       CASE WHEN $4::int > 0 THEN
	           (SELECT e.id FROM alarm_events e WHERE e.alarm_id = a.id ORDER BY e.id DESC OFFSET $4 LIMIT 1)
	       END AS below
	FROM a
), gone AS (
	DELETE FROM alarm_events e USING cut
	WHERE e.alarm_id = cut.id AND (e.at < $3 OR e.id <= cut.below)
	RETURNING 1
)
SELECT (SELECT count(*) FROM gone), coalesce((SELECT max(id) FROM a), ''), (SELECT count(*) FROM a)`

// trimStep is TrimStep: trimEventsSQL, run again when PostgreSQL rolled it back.
func (s *Store) trimStep(ctx context.Context, p ports.TrimEvents) (int, string, int, error) {
	var deleted, covered int64
	var last string
	err := retry(ctx, func() error {
		return s.pool.QueryRow(ctx, trimEventsSQL, p.After, p.Alarms, p.Before, p.Keep).Scan(&deleted, &last, &covered)
	})
	return int(deleted), last, int(covered), err
}

// acquireLeaseSQL takes a free or expired lease, or renews the holder's own, in one
// statement: ON CONFLICT serialises racing callers on the row, and the DO UPDATE's WHERE
// decides. A row comes back only when holder holds the lease afterwards. $4 is the
// injected clock's time or NULL for the database clock; $3 the ttl in microseconds.
const acquireLeaseSQL = `
INSERT INTO chronos_leases AS l (name, holder, expires_at)
VALUES ($1, $2, coalesce($4::timestamptz, now()) + $3::bigint * interval '1 microsecond')
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE l.holder = excluded.holder OR l.expires_at <= coalesce($4::timestamptz, now())
RETURNING holder`

// takeLease is TakeLease: acquireLeaseSQL returns a row only when holder holds the
// lease.
func (s *Store) takeLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var got string
	err := s.pool.QueryRow(ctx, acquireLeaseSQL, name, holder, ttl.Microseconds(), s.nowArg()).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

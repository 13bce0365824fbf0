package postgres

import (
	"context"
	"fmt"
	"hash/crc64"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chronoshq/chronos/ports"
)

var _ ports.Maintainer = (*Store)(nil)

// Vacuum thresholds, applied only where autovacuum is off (see Maintain). A table is
// vacuumed once it has vacuumMinDead dead row versions and they are at least
// vacuumDeadFraction of its live rows.
//
// Every fire leaves dead versions behind (the lease is a heap-only update; the outcome
// changes next_fire_at or status, so it also leaves a dead entry in the due index and
// the other indexes). The claim and NextDue walk the due index from its oldest entry,
// so without vacuum each of them reads every dead entry left so far: an index scan
// marks them killed, but the pages stay in the walk until VACUUM removes them. A VACUUM
// reads the pages changed since the last one and every index once, so it costs roughly
// the size of the table (bounded by retention); vacuuming at 5% keeps the walk short
// and the vacuums cheap.
// The thresholds are far lower than autovacuum's defaults (50 rows + 20%) on purpose:
// alarms is a queue table, whose hot end is exactly its dead end.
const (
	vacuumMinDead      = 10_000
	vacuumDeadFraction = 0.05
)

// maintainedTables are chronos's tables that collect dead rows.
var maintainedTables = []string{"alarms", "alarm_events"}

// tableStatsSQL reads the cumulative statistics (kept whether or not autovacuum runs)
// and whether autovacuum covers each table: the server setting, and a table's own
// autovacuum_enabled storage parameter.
const tableStatsSQL = `
SELECT c.relname, coalesce(s.n_live_tup, 0), coalesce(s.n_dead_tup, 0),
       current_setting('autovacuum') = 'on'
         AND coalesce((SELECT option_value FROM pg_options_to_table(c.reloptions)
                       WHERE option_name = 'autovacuum_enabled'), 'on') IN ('on', 'true', '1')
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r'
ORDER BY c.relname`

type tableStats struct {
	name        string
	live, dead  int64
	autovacuums bool
}

func (s *Store) tableStats(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]tableStats, error) {
	rows, err := q.Query(ctx, tableStatsSQL, maintainedTables)
	if err != nil {
		return nil, mapError(err)
	}
	stats, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableStats, error) {
		var t tableStats
		return t, r.Scan(&t.name, &t.live, &t.dead, &t.autovacuums)
	})
	return stats, mapError(err)
}

// MaintenanceNotice says whether chronos will vacuum its own tables.
func (s *Store) MaintenanceNotice(ctx context.Context) (string, error) {
	stats, err := s.tableStats(ctx, s.pool)
	if err != nil {
		return "", err
	}
	var off []string
	for _, t := range stats {
		if !t.autovacuums {
			off = append(off, t.name)
		}
	}
	if len(off) == 0 {
		return "", nil
	}
	return fmt.Sprintf("autovacuum does not cover %v on this PostgreSQL server (autovacuum off, "+
		"or autovacuum_enabled = false on the table): chronos vacuums them itself once they hold "+
		"%d dead rows and %.0f%% of their live rows, one node at a time; see docs/operations.md",
		off, vacuumMinDead, vacuumDeadFraction*100), nil
}

// Maintain vacuums the tables autovacuum does not cover once they have collected enough
// dead rows. One node at a time: it holds a session advisory lock of this schema while
// it works, and returns at once when another node holds it.
func (s *Store) Maintain(ctx context.Context) ([]ports.MaintenanceAction, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	defer conn.Release()
	if s.pooled {
		// Behind a transaction pooler a session lock would stay on whichever server
		// session took it. SKIP_LOCKED is the exclusion instead: of two nodes vacuuming
		// a table at once, the second skips it rather than queueing behind the first.
		return s.vacuumWhereNeeded(ctx, conn, `VACUUM (ANALYZE, SKIP_LOCKED) `)
	}
	lockID, err := s.maintenanceLockID(ctx, conn)
	if err != nil {
		return nil, err
	}
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockID).Scan(&locked); err != nil {
		return nil, mapError(err)
	}
	if !locked {
		return nil, nil
	}
	defer func() {
		// A session lock outlives a cancelled ctx; release it on a fresh one, and drop
		// the connection if even that fails, which releases it too.
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(unlockCtx, `SELECT pg_advisory_unlock($1)`, lockID); err != nil {
			_ = conn.Conn().Close(unlockCtx)
		}
	}()
	return s.vacuumWhereNeeded(ctx, conn, `VACUUM (ANALYZE) `)
}

// vacuumWhereNeeded runs vacuum (the statement up to the table's name) on each table
// autovacuum does not cover that holds enough dead rows.
func (s *Store) vacuumWhereNeeded(ctx context.Context, conn *pgxpool.Conn, vacuum string) ([]ports.MaintenanceAction, error) {
	stats, err := s.tableStats(ctx, conn)
	if err != nil {
		return nil, err
	}
	var done []ports.MaintenanceAction
	for _, t := range stats {
		if t.autovacuums || t.dead < vacuumMinDead || float64(t.dead) < vacuumDeadFraction*float64(t.live) {
			continue
		}
		start := time.Now()
		// Plain VACUUM: it takes a SHARE UPDATE EXCLUSIVE lock, which claims, Apply and
		// inserts do not conflict with. ANALYZE with it, as autovacuum would: the
		// store's plans do not depend on statistics (see sessionSettings), but an
		// operator's own queries do.
		if _, err := conn.Exec(ctx, vacuum+pgx.Identifier{t.name}.Sanitize()); err != nil {
			return done, fmt.Errorf("postgres: vacuum %s: %w", t.name, mapError(err))
		}
		done = append(done, ports.MaintenanceAction{
			Table: t.name, What: "vacuum analyze", Duration: time.Since(start),
			Why: fmt.Sprintf("%d dead rows, %d live", t.dead, t.live),
		})
	}
	return done, nil
}

// maintenanceLockID names the advisory lock of this schema's maintenance, apart from
// the migrations' lock.
func (s *Store) maintenanceLockID(ctx context.Context, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var schema string
	if err := conn.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		return 0, mapError(err)
	}
	return int64(crc64.Checksum([]byte("chronos maintenance "+schema), crcTable)), nil
}

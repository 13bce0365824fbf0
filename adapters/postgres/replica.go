package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chronoshq/chronos/ports"
)

var _ ports.ReadReplica = (*Store)(nil)

// ReplicaOptions configures OpenReplica.
type ReplicaOptions struct {
	// Clock replaces the database clock, as Options.Clock does (tests).
	Clock ports.Clock
}

// readOnlySetting makes every transaction of a replica's sessions read-only, so a write
// sent to it by mistake fails at once ("cannot execute ... in a read-only transaction")
// even when the URL names a server that accepts writes.
const readOnlySetting = "default_transaction_read_only"

// replicaMaxConns bounds a replica's pool: it serves the operator's views only.
const replicaMaxConns = 4

// OpenReplica opens url, a hot standby of the store's database (or any read-only copy
// of it), for the operator's reads (ports.ReadReplica). It makes no connection yet, so
// a replica that is down delays nothing: its first read fails and the caller goes to
// the primary. It never migrates, listens for hints or runs upkeep, and its sessions
// are read-only (except through a transaction pooler, which refuses the startup
// parameter: the standby refuses writes there by itself).
func OpenReplica(ctx context.Context, url string, opts ReplicaOptions) (*Store, error) {
	cfg, pooled, err := parseStoreURL(url)
	if err != nil {
		return nil, err
	}
	if !pooled {
		cfg.ConnConfig.RuntimeParams[readOnlySetting] = "on"
	}
	cfg.MaxConns = min(cfg.MaxConns, replicaMaxConns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, mapError(err)
	}
	s := &Store{pool: pool, clock: opts.Clock, pooled: pooled, done: make(chan struct{}), listenerCheck: listenerCheck}
	s.Engine = s.newEngine() // the reads a replica serves run in the shared engine
	return s, nil
}

// replicationLagSQL is 0 on a server that is no standby or has replayed all the WAL it
// received (an idle primary sends nothing, so the last replayed transaction ages
// without any lag), else the age of the last transaction replayed.
const replicationLagSQL = `
SELECT CASE WHEN NOT pg_is_in_recovery()
              OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)
       END::float8`

// ReplicationLag is how far this server, a standby, is behind its primary.
func (s *Store) ReplicationLag(ctx context.Context) (time.Duration, error) {
	var seconds float64
	if err := s.pool.QueryRow(ctx, replicationLagSQL).Scan(&seconds); err != nil {
		return 0, mapError(err)
	}
	return max(time.Duration(seconds*float64(time.Second)), 0), nil
}

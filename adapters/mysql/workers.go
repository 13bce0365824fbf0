package mysql

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row, stamping started_at and
// heartbeat_at with the store's now (both COALESCEs read the same statement time).
// REPLACE rather than INSERT ... ON DUPLICATE KEY UPDATE: the row is wholly new, and
// the VALUES() form that would be needed is deprecated on MySQL while its replacement
// (row aliases) does not exist on MariaDB.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := statsArg(w.Stats)
	if err != nil {
		return err
	}
	now := s.injectedNow()
	_, err = s.db.ExecContext(ctx, `REPLACE INTO workers (id, host, pid, version, stats, started_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, COALESCE(?, UTC_TIMESTAMP(6)), COALESCE(?, UTC_TIMESTAMP(6)))`,
		w.ID, w.Host, w.PID, w.Version, stats, now, now)
	return mapError(err)
}

// Heartbeat sets heartbeat_at to the store's now and replaces the stats.
func (s *Store) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := statsArg(stats)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx,
		`UPDATE workers SET heartbeat_at = COALESCE(?, UTC_TIMESTAMP(6)), stats = ? WHERE id = ?`, s.injectedNow(), js, workerID)
	if err != nil {
		return mapError(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return mapError(err)
}

// ListWorkers returns registered workers with their stats, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, host, pid, version, stats, started_at, heartbeat_at FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	out := []domain.Worker{}
	for rows.Next() {
		var w domain.Worker
		var stats []byte
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &w.Version, &stats, &w.StartedAt, &w.HeartbeatAt); err != nil {
			return nil, mapError(err)
		}
		if w.Stats, err = scanStats(stats); err != nil {
			return nil, mapError(fmt.Errorf("worker %q: %w", w.ID, err))
		}
		out = append(out, w)
	}
	return out, mapError(rows.Err())
}

// statsArg is the stats column: the JSON of stats.
func statsArg(stats domain.WorkerStats) (string, error) {
	b, err := json.Marshal(stats)
	if err != nil {
		return "", fmt.Errorf("mysql: worker stats: %w", err)
	}
	return string(b), nil
}

// scanStats reads the stats column: '{}' (a row registered before the column existed)
// and an empty column read as zero stats.
func scanStats(b []byte) (domain.WorkerStats, error) {
	var stats domain.WorkerStats
	if len(b) == 0 {
		return stats, nil
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		return domain.WorkerStats{}, fmt.Errorf("stats column: %w", err)
	}
	return stats, nil
}

package sqlrow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// WorkerColumns is the column list every worker read selects, in ScanWorker's order.
const WorkerColumns = `id, host, pid, version, stats, started_at, heartbeat_at`

// ScanWorker reads one row of WorkerColumns; toTime is as for NewAlarms.
func ScanWorker[T any](r Scanner, toTime func(T) time.Time) (domain.Worker, error) {
	var (
		w                  domain.Worker
		stats              string
		started, heartbeat T
	)
	if err := r.Scan(&w.ID, &w.Host, &w.PID, &w.Version, &stats, &started, &heartbeat); err != nil {
		return domain.Worker{}, err
	}
	st, err := statsFromJSON(stats)
	if err != nil {
		return domain.Worker{}, fmt.Errorf("worker %q: %w", w.ID, err)
	}
	w.Stats, w.StartedAt, w.HeartbeatAt = st, toTime(started), toTime(heartbeat)
	return w, nil
}

// StatsJSON is the stats column: domain.WorkerStats as JSON, by its json tags, which SQL
// never looks into.
func StatsJSON(st domain.WorkerStats) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("worker stats: %w", err)
	}
	return string(b), nil
}

// statsFromJSON reads the stats column back. '{}' (the column's default: a worker
// registered before stats existed) and an empty column read as zero stats.
func statsFromJSON(js string) (domain.WorkerStats, error) {
	var st domain.WorkerStats
	if js == "" {
		return st, nil
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return domain.WorkerStats{}, fmt.Errorf("stats are not WorkerStats JSON: %w", err)
	}
	return st, nil
}

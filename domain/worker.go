package domain

import "time"

// Worker is one chronos process (a node), registered so operators can see who is alive
// and who holds leases. The store stamps StartedAt and HeartbeatAt with its own clock.
type Worker struct {
	ID          string
	Host        string
	PID         int
	Version     string
	StartedAt   time.Time
	HeartbeatAt time.Time
	Stats       WorkerStats // as of the last heartbeat
}

// WorkerStats is what a node reports about its own dispatching at every heartbeat. The
// admin overview sums the live nodes' windows for "fires in the last minute / hour": a
// node that died takes its windows with it, which is the price of not writing a row
// per fire.
type WorkerStats struct {
	InFlight    int   `json:"in_flight"`    // wakes being delivered now
	Claimed     int64 `json:"claimed"`      // alarms claimed since the node started
	Delivered   int64 `json:"delivered"`    // wakes acknowledged since start
	Failed      int64 `json:"failed"`       // wakes that failed since start
	Stale       int64 `json:"stale"`        // outcomes refused by the lease fence since start
	Delivered1m int64 `json:"delivered_1m"` // in the last minute
	Failed1m    int64 `json:"failed_1m"`
	Delivered1h int64 `json:"delivered_1h"` // in the last hour
	Failed1h    int64 `json:"failed_1h"`
	// Wake lag (delivered minus due) over the last minute, to within a factor of two;
	// 0 when nothing was woken.
	LagP50Ms float64 `json:"lag_p50_ms"`
	LagP99Ms float64 `json:"lag_p99_ms"`
}

package domain

import "time"

// What the operator's use cases (admin.Admin) answer. Plain data, shared by the use cases
// and the API adapter that renders them.

// DispatchState is the cluster-wide pause gate: while Paused, no node claims (wakes
// already in flight finish). Stored as this JSON.
type DispatchState struct {
	Paused bool      `json:"paused"`
	Since  time.Time `json:"since,omitzero"` // when the current pause began
	By     string    `json:"by,omitempty"`   // the admin token that paused
}

// RetentionRun is one recorded retention pass. Stored as this JSON.
type RetentionRun struct {
	Node          string    `json:"node"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	AlarmsDeleted int       `json:"alarms_deleted"`
	EventsDeleted int       `json:"events_deleted"`
	Error         string    `json:"error,omitempty"`
	// SweepNext is where the events sweep goes on at the next pass, on whatever node.
	SweepNext string `json:"sweep_next,omitempty"`
}

// RetentionStatus is a node's retention policy and the cluster's last pass.
type RetentionStatus struct {
	Retention      time.Duration // 0: off
	EventsPerAlarm int
	LastRun        *RetentionRun // nil when none was recorded
}

// Overview is the cluster at a glance.
type Overview struct {
	ByStatus     map[Status]int64
	Due          int64         // due alarms nobody holds a live lease on
	OldestDue    time.Time     // zero when Due is 0
	OldestDueLag time.Duration // how late that alarm is
	// Wakes in the last minute and hour, summed over the live workers' heartbeats (a
	// node that died takes its counts with it).
	Delivered1m, Failed1m, Delivered1h, Failed1h int64
	LiveWorkers                                  int
	Dispatch                                     DispatchState
	PausedFor                                    time.Duration // the current pause so far; 0 when running
	CountedAt                                    time.Time     // when ByStatus and Due were counted
	Now                                          time.Time     // the store's now
	// QueuingEndpoints are the endpoints queuing on the live workers, each summed over
	// the workers that report it (each reports only its busiest few), busiest first, at
	// most MaxQueuingEndpoints.
	QueuingEndpoints []EndpointLoad
	// Replica is the read replica the operator's lists, counts and histories are read
	// from; nil when the node has none.
	Replica *ReplicaState
}

// ReplicaState is how the node's read replica is doing.
type ReplicaState struct {
	// Available: the replica answers. When it does not, the operator's reads go to the
	// primary and Error says why.
	Available bool
	Error     string
	// Lag is how far the replica is behind the primary (0 when caught up, or not
	// Available): what it shows may be this old.
	Lag time.Duration
}

// MaxQueuingEndpoints bounds Overview.QueuingEndpoints.
const MaxQueuingEndpoints = 20

// WorkerHealth is a registered node with how fresh its heartbeat is.
type WorkerHealth struct {
	Worker
	HeartbeatAge time.Duration
	Alive        bool
}

// BulkAction is what a bulk admin call does to every alarm its filter selects.
type BulkAction string

const (
	BulkRetry  BulkAction = "retry"  // the failed ones
	BulkCancel BulkAction = "cancel" // the ones not yet terminal
	BulkDelete BulkAction = "delete" // all of them
)

// BulkResult says what a bulk call did.
type BulkResult struct {
	Matched int  // alarms the filter selected in this call (at most its limit)
	Changed int  // of those, the ones the action changed
	More    bool // the call stopped at its limit: call again from NextCursor
	// NextCursor continues the walk after the last alarm this call read; "" when it
	// reached the end. A call from it may find nothing more (More is then false).
	NextCursor string
}

// Backup is one copy of the store the operator asked a node for (SQLite only), written
// to the node's backup directory.
type Backup struct {
	File  string        // its name in the backup directory, chosen by the node
	Bytes int64         // its size
	At    time.Time     // when it was started: the copy is the store as it was then, or a moment later
	Took  time.Duration // how long writing and checking it took
}

// BackupSetup says whether a node makes backups on request, and where.
type BackupSetup struct {
	Supported bool   // the store can copy itself (SQLite); false: use the database's own tools
	Dir       string // the node's --backup-dir; "" when none was set (no backups on request)
}

package client

import (
	"encoding/json"
	"math"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// AdminAlarm is an alarm as /admin/v1 shows it: the owner's view plus who owns it, the
// dispatcher's lease, and the size and SHA-256 of the payload and wake message. Unless
// the server runs with --admin-show-payloads, Redacted is true, Payload is "null" and
// WakeMessage is "": the sizes and digests still tell two alarms apart.
type AdminAlarm struct {
	Alarm
	Owner             string    `json:"owner"`
	ClaimedBy         string    `json:"claimed_by"` // the worker holding the lease; "" when unclaimed
	ClaimedAt         time.Time `json:"claimed_at"`
	Redacted          bool      `json:"redacted"`
	PayloadSize       int       `json:"payload_size"` // bytes of the stored payload JSON
	PayloadSHA256     string    `json:"payload_sha256"`
	WakeMessageSize   int       `json:"wake_message_size"`
	WakeMessageSHA256 string    `json:"wake_message_sha256"`
}

// AdminAlarmPage is one page of alarms across owners, newest first.
type AdminAlarmPage struct {
	Alarms []AdminAlarm `json:"alarms"`
	// NextCursor fetches the next page; "" on the last page, and only there: a filtered
	// page may hold fewer alarms than asked, even none, and still carry one.
	NextCursor string `json:"next_cursor"`
}

// Overview is the cluster at a glance.
type Overview struct {
	Counts      map[domain.Status]int `json:"counts"` // alarms by status
	Total       int                   `json:"total"`
	DueBacklog  int                   `json:"due_backlog"`   // active alarms already due
	OldestDueAt time.Time             `json:"oldest_due_at"` // zero when nothing is due
	// OldestDueLag is how late the oldest due alarm is; 0 when none is due.
	OldestDueLag    time.Duration `json:"-"`
	WakesLastMinute WakeCounts    `json:"wakes_last_minute"`
	WakesLastHour   WakeCounts    `json:"wakes_last_hour"`
	LiveWorkers     int           `json:"live_workers"`
	// QueuingEndpoints are the endpoints with wakes queued, or as many in flight as
	// their max_in_flight, summed over the live workers, busiest first (at most 20).
	QueuingEndpoints []EndpointLoad `json:"queuing_endpoints"`
	Dispatch         Dispatch       `json:"dispatch"`
	// CountsAt is when Counts, Total and DueBacklog were counted: one node of the
	// cluster counts every 15 s and shares the result.
	CountsAt time.Time `json:"counts_at"`
	Now      time.Time `json:"now"` // the server's clock when it answered
	// Replica is the read replica the admin's lists, counts, alarms and histories come
	// from (chronos serve --store-replica); nil when the server has none.
	Replica *Replica `json:"replica"`
}

// Replica is how the server's read replica is doing.
type Replica struct {
	// Available: it answers. When false the server reads the primary instead, and
	// Error says why.
	Available bool   `json:"available"`
	Error     string `json:"error"`
	// Lag is how far it is behind the primary: how old what the admin reads may be.
	Lag time.Duration `json:"-"`
}

// UnmarshalJSON reads lag_seconds into Lag.
func (r *Replica) UnmarshalJSON(b []byte) error {
	type plain Replica
	w := struct {
		*plain
		Lag float64 `json:"lag_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Lag = seconds(w.Lag)
	return nil
}

// UnmarshalJSON reads oldest_due_lag_seconds into OldestDueLag.
func (o *Overview) UnmarshalJSON(b []byte) error {
	type plain Overview
	w := struct {
		*plain
		Lag float64 `json:"oldest_due_lag_seconds"`
	}{plain: (*plain)(o)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	o.OldestDueLag = seconds(w.Lag)
	return nil
}

// EndpointLoad is how busy one endpoint is across the live workers.
type EndpointLoad struct {
	Owner    string `json:"owner"`
	Name     string `json:"name"`
	Queued   int    `json:"queued"`    // wakes waiting in its queue for room or for their turn
	InFlight int    `json:"in_flight"` // wakes being delivered to it
	HeldBack int    `json:"held_back"` // wakes held back for its room, rate or breaker since each node started
}

// WakeCounts counts deliveries over a recent window.
type WakeCounts struct {
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
}

// Dispatch is whether the cluster's dispatchers are paused. A pause stops new claims
// on every node; deliveries already in flight finish.
type Dispatch struct {
	Paused bool      `json:"paused"`
	Since  time.Time `json:"since"` // when the current pause began; zero when not paused
	By     string    `json:"by"`    // the id of the token that paused it
	// PausedFor is how long the current pause has lasted.
	PausedFor time.Duration `json:"-"`
}

// UnmarshalJSON reads paused_seconds into PausedFor.
func (d *Dispatch) UnmarshalJSON(b []byte) error {
	type plain Dispatch
	w := struct {
		*plain
		Secs float64 `json:"paused_seconds"`
	}{plain: (*plain)(d)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.PausedFor = seconds(w.Secs)
	return nil
}

// Worker is one node's dispatcher as its heartbeat describes it.
type Worker struct {
	ID          string    `json:"id"`
	Host        string    `json:"host"`
	PID         int       `json:"pid"`
	Version     string    `json:"version"`
	StartedAt   time.Time `json:"started_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// HeartbeatAge is how old the last heartbeat was when the server answered.
	HeartbeatAge time.Duration `json:"-"`
	Alive        bool          `json:"alive"` // the heartbeat is recent enough to count the node live
	Stats        WorkerStats   `json:"stats"`
}

// UnmarshalJSON reads heartbeat_age_seconds into HeartbeatAge.
func (w *Worker) UnmarshalJSON(b []byte) error {
	type plain Worker
	v := struct {
		*plain
		Age float64 `json:"heartbeat_age_seconds"`
	}{plain: (*plain)(w)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	w.HeartbeatAge = seconds(v.Age)
	return nil
}

// WorkerStats are a worker's counters: totals since it started, and over the last
// minute and hour.
type WorkerStats struct {
	InFlight    int `json:"in_flight"`
	Claimed     int `json:"claimed"`
	Delivered   int `json:"delivered"`
	Failed      int `json:"failed"`
	Stale       int `json:"stale"` // outcomes refused because the lease had moved on
	Delivered1m int `json:"delivered_1m"`
	Failed1m    int `json:"failed_1m"`
	Delivered1h int `json:"delivered_1h"`
	Failed1h    int `json:"failed_1h"`
	// Wake lag (delivered minus due) over the last minute, in milliseconds, to within a
	// factor of two.
	LagP50Ms float64 `json:"lag_p50_ms"`
	LagP99Ms float64 `json:"lag_p99_ms"`
}

// Retention is how the server prunes finished alarms and long histories.
type Retention struct {
	Enabled bool `json:"enabled"`
	// Period is how long a finished alarm is kept.
	Period         time.Duration `json:"-"`
	EventsPerAlarm int           `json:"events_per_alarm"` // the newest events kept per alarm
	LastRun        *RetentionRun `json:"last_run"`         // nil when none has run
}

// UnmarshalJSON reads retention_seconds into Period.
func (r *Retention) UnmarshalJSON(b []byte) error {
	type plain Retention
	w := struct {
		*plain
		Period float64 `json:"retention_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Period = seconds(w.Period)
	return nil
}

// RetentionRun is one pass of retention on one node.
type RetentionRun struct {
	Node          string    `json:"node"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	AlarmsDeleted int       `json:"alarms_deleted"`
	EventsDeleted int       `json:"events_deleted"`
	Error         string    `json:"error"` // "" when the run succeeded
}

// Deleted counts what deleting an alarm removed.
type Deleted struct {
	Alarms int `json:"alarms"`
	Events int `json:"events"`
}

// BulkResult is the outcome of a bulk call: an admin's retry, cancel or delete, an
// owner's pause, resume or cancel.
type BulkResult struct {
	Matched int `json:"matched"` // alarms the filter selected in this call
	// Changed is how many of them the action changed: the failed ones for a retry, the
	// unfinished ones for a cancel, all of them for a delete.
	Changed int `json:"changed"`
	// More says the call stopped at its limit: call again with Cursor = NextCursor to
	// go on (that call may find nothing more).
	More bool `json:"more"`
	// NextCursor goes on after the last alarm the call went through; "" at the end.
	NextCursor string `json:"next_cursor"`
	// DryRun is true when nothing was changed: Changed is then how many would have been.
	DryRun bool `json:"dry_run"`
}

// seconds converts the API's fractional seconds, saturating rather than overflowing.
func seconds(s float64) time.Duration {
	ns := math.Round(s * float64(time.Second))
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// Backup is a copy of the store a node wrote to its --backup-dir.
type Backup struct {
	File  string    `json:"file"` // its name in the node's --backup-dir
	Bytes int64     `json:"bytes"`
	At    time.Time `json:"at"` // when the copy began: it holds what was committed by then
	// Took is how long writing and checking it took.
	Took time.Duration `json:"-"`
}

// UnmarshalJSON reads took_ms into Took.
func (b *Backup) UnmarshalJSON(data []byte) error {
	type plain Backup
	w := struct {
		*plain
		TookMS int64 `json:"took_ms"`
	}{plain: (*plain)(b)}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	b.Took = time.Duration(w.TookMS) * time.Millisecond
	return nil
}

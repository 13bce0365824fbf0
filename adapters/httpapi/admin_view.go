package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// appendAdminAlarm writes the alarm as an operator sees it: the owner's view plus the
// owner and the lease, and, unless showPayloads, the payload and the wake message
// replaced by their size and SHA-256. An operator can then tell two payloads apart, or
// match one a customer sends, without reading it: payloads carry the owners' data
// (tokens, personal data) that an operator has no business seeing by default.
func appendAdminAlarm(buf *bytes.Buffer, a domain.Alarm, showPayloads bool) error {
	payload, err := storedPayload(a)
	if err != nil {
		return err
	}
	shownPayload, shownWake := payload, a.WakeMessage
	if !showPayloads {
		shownPayload, shownWake = []byte("null"), ""
	}
	o := jsonio.BeginObject(buf)
	alarmMembers(o, a, shownPayload, shownWake)
	o.Value("owner", a.Owner)
	o.Value("claimed_by", a.ClaimedBy)
	o.Value("claimed_at", jsonio.Time(a.ClaimedAt))
	o.Value("redacted", !showPayloads)
	o.Value("payload_size", len(payload))
	o.Value("payload_sha256", sha256Hex(payload))
	o.Value("wake_message_size", len(a.WakeMessage))
	o.Value("wake_message_sha256", sha256Hex([]byte(a.WakeMessage)))
	return o.End()
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// adminAlarmBody is {"alarm": ...}.
func adminAlarmBody(a domain.Alarm, showPayloads bool) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"alarm":`)
	if err := appendAdminAlarm(&buf, a, showPayloads); err != nil {
		return nil, err
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// adminAlarmsBody is {"alarms": [...], "next_cursor": "..."}.
func adminAlarmsBody(alarms []domain.Alarm, next string, showPayloads bool) ([]byte, error) {
	return pageBody(alarms, next, func(buf *bytes.Buffer, a domain.Alarm) error {
		return appendAdminAlarm(buf, a, showPayloads)
	})
}

type wakeCounts struct {
	Delivered int64 `json:"delivered"`
	Failed    int64 `json:"failed"`
}

type overviewView struct {
	Counts              map[domain.Status]int64 `json:"counts"`
	Total               int64                   `json:"total"`
	DueBacklog          int64                   `json:"due_backlog"`
	OldestDueAt         jsonio.Time             `json:"oldest_due_at"`
	OldestDueLagSeconds float64                 `json:"oldest_due_lag_seconds"`
	WakesLastMinute     wakeCounts              `json:"wakes_last_minute"`
	WakesLastHour       wakeCounts              `json:"wakes_last_hour"`
	LiveWorkers         int                     `json:"live_workers"`
	QueuingEndpoints    []domain.EndpointLoad   `json:"queuing_endpoints"` // [] when none
	Dispatch            dispatchView            `json:"dispatch"`
	CountsAt            jsonio.Time             `json:"counts_at"`
	Now                 jsonio.Time             `json:"now"`
	Replica             *replicaView            `json:"replica"` // null without one
}

type replicaView struct {
	Available  bool    `json:"available"`
	LagSeconds float64 `json:"lag_seconds"`
	Error      string  `json:"error"`
}

func newOverviewView(o domain.Overview) overviewView {
	v := overviewView{
		Counts:              map[domain.Status]int64{},
		DueBacklog:          o.Due,
		OldestDueAt:         jsonio.Time(o.OldestDue),
		OldestDueLagSeconds: o.OldestDueLag.Seconds(),
		WakesLastMinute:     wakeCounts{o.Delivered1m, o.Failed1m},
		WakesLastHour:       wakeCounts{o.Delivered1h, o.Failed1h},
		LiveWorkers:         o.LiveWorkers,
		QueuingEndpoints:    append([]domain.EndpointLoad{}, o.QueuingEndpoints...),
		Dispatch:            dispatchView{o.Dispatch.Paused, jsonio.Time(o.Dispatch.Since), o.Dispatch.By, o.PausedFor.Seconds()},
		CountsAt:            jsonio.Time(o.CountedAt),
		Now:                 jsonio.Time(o.Now),
	}
	if r := o.Replica; r != nil {
		v.Replica = &replicaView{Available: r.Available, LagSeconds: r.Lag.Seconds(), Error: r.Error}
	}
	for _, s := range domain.Statuses {
		v.Counts[s] = o.ByStatus[s]
		v.Total += o.ByStatus[s]
	}
	return v
}

type dispatchView struct {
	Paused        bool        `json:"paused"`
	Since         jsonio.Time `json:"since"`
	By            string      `json:"by"`
	PausedSeconds float64     `json:"paused_seconds"`
}

// newDispatchView shows the gate; how long it has been paused is measured against now.
func newDispatchView(s domain.DispatchState, now time.Time) dispatchView {
	v := dispatchView{Paused: s.Paused, Since: jsonio.Time(s.Since), By: s.By}
	if s.Paused {
		v.PausedSeconds = max(now.Sub(s.Since), 0).Seconds()
	}
	return v
}

type workerView struct {
	ID                  string             `json:"id"`
	Host                string             `json:"host"`
	PID                 int                `json:"pid"`
	Version             string             `json:"version"`
	StartedAt           jsonio.Time        `json:"started_at"`
	HeartbeatAt         jsonio.Time        `json:"heartbeat_at"`
	HeartbeatAgeSeconds float64            `json:"heartbeat_age_seconds"`
	Alive               bool               `json:"alive"`
	Stats               domain.WorkerStats `json:"stats"`
}

func newWorkerView(w domain.WorkerHealth) workerView {
	return workerView{
		ID: w.ID, Host: w.Host, PID: w.PID, Version: w.Version,
		StartedAt: jsonio.Time(w.StartedAt), HeartbeatAt: jsonio.Time(w.HeartbeatAt),
		HeartbeatAgeSeconds: w.HeartbeatAge.Seconds(), Alive: w.Alive, Stats: w.Stats,
	}
}

type retentionRunView struct {
	Node          string      `json:"node"`
	StartedAt     jsonio.Time `json:"started_at"`
	FinishedAt    jsonio.Time `json:"finished_at"`
	AlarmsDeleted int         `json:"alarms_deleted"`
	EventsDeleted int         `json:"events_deleted"`
	Error         string      `json:"error"`
}

func newRetentionRunView(r domain.RetentionRun) retentionRunView {
	return retentionRunView{r.Node, jsonio.Time(r.StartedAt), jsonio.Time(r.FinishedAt), r.AlarmsDeleted, r.EventsDeleted, r.Error}
}

type retentionView struct {
	Enabled          bool              `json:"enabled"`
	RetentionSeconds float64           `json:"retention_seconds"`
	EventsPerAlarm   int               `json:"events_per_alarm"`
	LastRun          *retentionRunView `json:"last_run"`
}

func newRetentionView(s domain.RetentionStatus) retentionView {
	v := retentionView{Enabled: s.Retention > 0, RetentionSeconds: s.Retention.Seconds(), EventsPerAlarm: s.EventsPerAlarm}
	if s.LastRun != nil {
		run := newRetentionRunView(*s.LastRun)
		v.LastRun = &run
	}
	return v
}

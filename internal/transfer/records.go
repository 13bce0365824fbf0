// Package transfer moves a chronos cluster's contents from one store to another of any
// kind: Export writes them as JSON lines, Import writes such a file into a store.
// Both go through ports only (ports.Exporter and ports.Importer, and the ports every
// store has), never a store's SQL, so every pair of stores works the same way.
// docs/migrating-stores.md is the operator's account of what moves and what does not.
package transfer

import (
	"encoding/base64"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
)

// FormatVersion is the version of the file format Export writes. Import reads it and
// every earlier one back to oldestFormat, and refuses any other: a later chronos may
// add a version it also reads.
//
//   - 1: states, endpoints, tokens, alarms, events.
//   - 2: calendar records (before the alarms), a series' exclude_calendars, and the
//     calendars count. A version-1 file is a version-2 file without them.
//   - 3: an attempt's receipt on its event (the attempt log: duration, status, content
//     type, body). A version-2 file is a version-3 file whose events carry none; its
//     alarms arrive with an empty attempt log.
const FormatVersion = 3

// oldestFormat is the earliest format Import still reads.
const oldestFormat = 1

// Record types: the "type" field of every line.
const (
	typeHeader   = "header"
	typeState    = "state"
	typeEndpoint = "endpoint"
	typeToken    = "token"
	typeCalendar = "calendar"
	typeAlarm    = "alarm"
	typeEvent    = "event"
	typeEnd      = "end"
)

// Counts are how many records of each type a file holds (the end line: exactly what was
// written; the header: what the source held when the export began).
type Counts struct {
	Alarms    int64 `json:"alarms"`
	Events    int64 `json:"events"`
	Endpoints int64 `json:"endpoints"`
	Tokens    int64 `json:"tokens"`
	States    int64 `json:"states"`
	// Calendars are never counted in the header (they are read page by page as they
	// are written), and absent from an end line when there are none, as in format 1.
	Calendars int64 `json:"calendars,omitempty"`
}

// header is the first line.
type header struct {
	Type           string    `json:"type"`
	Format         int       `json:"format"`
	ChronosVersion string    `json:"chronos_version"`
	Store          string    `json:"store"`           // the source's kind: sqlite, postgres, mysql
	Owner          string    `json:"owner,omitempty"` // set: this owner alone (ExportOptions.Owner)
	ExportedAt     time.Time `json:"exported_at"`
	// Counts as the source held them when the export began (events are not counted
	// there: that would read the whole history twice). The end line's are exact.
	Counts  Counts `json:"counts"`
	Secrets string `json:"secrets"` // a warning for whoever opens the file
}

// end is the last line: a file without it was cut short.
type end struct {
	Type   string `json:"type"`
	Counts Counts `json:"counts"`
}

// stateRecord is a named cluster value (ports.StateStore) that moves (see states).
type stateRecord struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

type endpointRecord struct {
	Type          string     `json:"type"`
	Owner         string     `json:"owner"`
	Name          string     `json:"name"`
	URL           string     `json:"url"`
	Secrets       []string   `json:"secrets"`
	TimeoutMS     int64      `json:"timeout_ms,omitempty"`
	MaxInFlight   int        `json:"max_in_flight,omitempty"`
	RatePerSecond float64    `json:"rate_per_second,omitempty"`
	FailureURL    string     `json:"failure_url,omitempty"`
	CreatedAt     *time.Time `json:"created_at,omitempty"`
	UpdatedAt     *time.Time `json:"updated_at,omitempty"`
}

type tokenRecord struct {
	Type       string     `json:"type"`
	ID         string     `json:"id"`
	Owner      string     `json:"owner"`
	Scope      string     `json:"scope"`
	Hash       string     `json:"sha256"` // hex SHA-256 of the token: the token itself is never stored
	Note       string     `json:"note,omitempty"`
	CreatedAt  *time.Time `json:"created_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// alarmRecord is an alarm's whole row. The payload is the stored bytes as a JSON
// string (a raw JSON value would be re-spaced by the encoder), or base64 when they are
// not UTF-8; absent when the alarm has none.
type alarmRecord struct {
	Type           string            `json:"type"`
	ID             string            `json:"id"`
	Owner          string            `json:"owner"`
	Label          string            `json:"label,omitempty"`
	Kind           string            `json:"kind"`
	FireAt         *time.Time        `json:"fire_at,omitempty"`
	CronExpr       string            `json:"cron_expr,omitempty"`
	Timezone       string            `json:"timezone,omitempty"`
	NextFireAt     *time.Time        `json:"next_fire_at,omitempty"`
	ScheduledFor   *time.Time        `json:"scheduled_for,omitempty"`
	ConversationID string            `json:"conversation_id,omitempty"`
	WakeMessage    string            `json:"wake_message,omitempty"`
	Payload        *string           `json:"payload,omitempty"`
	PayloadBase64  *string           `json:"payload_base64,omitempty"`
	Endpoint       string            `json:"endpoint,omitempty"`
	Status         string            `json:"status"`
	Delivery       string            `json:"delivery"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	MaxFailures    int               `json:"max_failures"`
	FailureCount   int               `json:"failure_count,omitempty"`
	LastError      string            `json:"last_error,omitempty"`
	ClaimedBy      string            `json:"claimed_by,omitempty"`
	ClaimedAt      *time.Time        `json:"claimed_at,omitempty"`
	CreatedAt      *time.Time        `json:"created_at,omitempty"`
	UpdatedAt      *time.Time        `json:"updated_at,omitempty"`
	LastFiredAt    *time.Time        `json:"last_fired_at,omitempty"`
	Series         *seriesRecord     `json:"series,omitempty"`
	FireCount      int               `json:"fire_count,omitempty"`
	SkipStreak     int               `json:"skip_streak,omitempty"`
	PausedReason   string            `json:"paused_reason,omitempty"`
	PausedUntil    *time.Time        `json:"paused_until,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`
	TraceParent    string            `json:"traceparent,omitempty"`
	TraceState     string            `json:"tracestate,omitempty"`
}

// seriesRecord is domain.Series; the window is a Go duration ("36h0m0s"), exact.
type seriesRecord struct {
	Misfire             string     `json:"misfire,omitempty"`
	CatchUpLimit        int        `json:"catch_up_limit,omitempty"`
	CatchUpWindow       string     `json:"catch_up_window,omitempty"`
	MaxConsecutiveSkips int        `json:"max_consecutive_skips,omitempty"`
	StartAt             *time.Time `json:"start_at,omitempty"`
	EndAt               *time.Time `json:"end_at,omitempty"`
	MaxFires            int        `json:"max_fires,omitempty"`
	JitterSeconds       int        `json:"jitter_seconds,omitempty"`
	BackfillOf          string     `json:"backfill_of,omitempty"`
	Notice              string     `json:"notice,omitempty"`
	ExcludeCalendars    []string   `json:"exclude_calendars,omitempty"` // format 2
}

// calendarRecord is an owner's exclusion calendar (domain.Calendar), format 2. Every
// list is present, empty when it excludes nothing.
type calendarRecord struct {
	Type            string        `json:"type"`
	Owner           string        `json:"owner"`
	Name            string        `json:"name"`
	Timezone        string        `json:"timezone"`
	ExcludeDates    []string      `json:"exclude_dates"`
	ExcludeWeekdays []int         `json:"exclude_weekdays"`
	ExcludeRanges   []rangeRecord `json:"exclude_ranges"`
	CreatedAt       *time.Time    `json:"created_at,omitempty"`
	UpdatedAt       *time.Time    `json:"updated_at,omitempty"`
}

type rangeRecord struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// eventRecord is one stored event of an alarm's history. Its store id is not kept: the
// order of the lines is each alarm's order, and the target numbers them anew.
type eventRecord struct {
	Type         string         `json:"type"`
	AlarmID      string         `json:"alarm_id"`
	Event        string         `json:"event"`
	At           *time.Time     `json:"at,omitempty"`
	Attempt      int            `json:"attempt,omitempty"`
	ScheduledFor *time.Time     `json:"scheduled_for,omitempty"`
	Worker       string         `json:"worker,omitempty"`
	Message      string         `json:"message,omitempty"`
	Receipt      *receiptRecord `json:"receipt,omitempty"` // format 3; present on an attempt's event alone
}

// receiptRecord is what a delivery attempt came to (domain.Receipt), named as the event
// row's columns are. The body is base64 (JSON's spelling of bytes): it may be anything
// a receiver answered.
type receiptRecord struct {
	DurationUS        int64  `json:"duration_us"`
	HTTPStatus        int    `json:"http_status,omitempty"`
	ResponseType      string `json:"response_type,omitempty"`
	ResponseBody      []byte `json:"response_body,omitempty"`
	ResponseTruncated bool   `json:"response_truncated,omitempty"`
}

// stamp is t for a record: nil when unset.
func stamp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// unstamp is a record's time back: zero when absent.
func unstamp(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func alarmToRecord(a domain.Alarm) alarmRecord {
	r := alarmRecord{Type: typeAlarm, ID: a.ID, Owner: a.Owner, Label: a.Label, Kind: string(a.Kind),
		FireAt: stamp(a.FireAt), CronExpr: a.CronExpr, Timezone: a.Timezone, NextFireAt: stamp(a.NextFireAt),
		ScheduledFor: stamp(a.ScheduledFor), ConversationID: a.ConversationID, WakeMessage: a.WakeMessage,
		Endpoint: a.Endpoint, Status: string(a.Status), Delivery: string(a.Delivery), IdempotencyKey: a.IdempotencyKey,
		MaxFailures: a.MaxFailures, FailureCount: a.FailureCount, LastError: a.LastError,
		ClaimedBy: a.ClaimedBy, ClaimedAt: stamp(a.ClaimedAt), CreatedAt: stamp(a.CreatedAt), UpdatedAt: stamp(a.UpdatedAt),
		LastFiredAt: stamp(a.LastFiredAt), FireCount: a.FireCount, SkipStreak: a.SkipStreak,
		PausedReason: a.PausedReason, PausedUntil: stamp(a.PausedUntil), Tags: a.Tags}
	r.TraceParent, r.TraceState = a.TraceParent, a.TraceState
	if a.Payload != nil {
		if utf8.Valid(a.Payload) {
			p := string(a.Payload)
			r.Payload = &p
		} else {
			p := base64.StdEncoding.EncodeToString(a.Payload)
			r.PayloadBase64 = &p
		}
	}
	if s := a.Series; !s.IsZero() {
		r.Series = &seriesRecord{Misfire: string(s.Misfire), CatchUpLimit: s.CatchUpLimit,
			MaxConsecutiveSkips: s.MaxConsecutiveSkips, StartAt: stamp(s.StartAt), EndAt: stamp(s.EndAt),
			MaxFires: s.MaxFires, JitterSeconds: s.JitterSeconds, BackfillOf: s.BackfillOf, Notice: s.Notice,
			ExcludeCalendars: s.ExcludeCalendars}
		if s.CatchUpWindow != 0 {
			r.Series.CatchUpWindow = s.CatchUpWindow.String()
		}
	}
	return r
}

// alarm is the record as the domain's alarm, checked as a store checks a row it reads
// (domain.Rehydrate); an error names the field.
func (r alarmRecord) alarm() (domain.Alarm, error) {
	a := domain.Alarm{ID: r.ID, Owner: r.Owner, Label: r.Label, Kind: domain.Kind(r.Kind),
		FireAt: unstamp(r.FireAt), CronExpr: r.CronExpr, Timezone: r.Timezone, NextFireAt: unstamp(r.NextFireAt),
		ScheduledFor: unstamp(r.ScheduledFor), ConversationID: r.ConversationID, WakeMessage: r.WakeMessage,
		Endpoint: r.Endpoint, Status: domain.Status(r.Status), Delivery: domain.Delivery(r.Delivery),
		IdempotencyKey: r.IdempotencyKey, MaxFailures: r.MaxFailures, FailureCount: r.FailureCount, LastError: r.LastError,
		ClaimedBy: r.ClaimedBy, ClaimedAt: unstamp(r.ClaimedAt), CreatedAt: unstamp(r.CreatedAt), UpdatedAt: unstamp(r.UpdatedAt),
		LastFiredAt: unstamp(r.LastFiredAt), FireCount: r.FireCount, SkipStreak: r.SkipStreak,
		PausedReason: r.PausedReason, PausedUntil: unstamp(r.PausedUntil), Tags: r.Tags}
	if err := domain.ValidateTags(a.Tags); err != nil {
		return domain.Alarm{}, fmt.Errorf("alarm %s: %w", r.ID, err)
	}
	if len(a.Tags) == 0 {
		a.Tags = nil
	}
	if r.TraceParent != "" {
		tp, ok := domain.ParseTraceParent(r.TraceParent)
		if !ok {
			return domain.Alarm{}, fmt.Errorf("alarm %s: traceparent %q is not a W3C traceparent", r.ID, r.TraceParent)
		}
		a.TraceParent = tp
	}
	if r.TraceState != "" && (a.TraceParent == "" || !domain.ValidTraceState(r.TraceState)) {
		return domain.Alarm{}, fmt.Errorf("alarm %s: tracestate must be at most %d printable ASCII characters, with a traceparent", r.ID, domain.MaxTraceStateLen)
	}
	a.TraceState = r.TraceState
	switch {
	case r.Payload != nil && r.PayloadBase64 != nil:
		return domain.Alarm{}, fmt.Errorf("alarm %s: payload and payload_base64 are both set", r.ID)
	case r.Payload != nil:
		a.Payload = []byte(*r.Payload)
	case r.PayloadBase64 != nil:
		p, err := base64.StdEncoding.DecodeString(*r.PayloadBase64)
		if err != nil {
			return domain.Alarm{}, fmt.Errorf("alarm %s: payload_base64: %w", r.ID, err)
		}
		a.Payload = p
	}
	if s := r.Series; s != nil {
		a.Series = domain.Series{Misfire: domain.Misfire(s.Misfire), CatchUpLimit: s.CatchUpLimit,
			MaxConsecutiveSkips: s.MaxConsecutiveSkips, StartAt: unstamp(s.StartAt), EndAt: unstamp(s.EndAt),
			MaxFires: s.MaxFires, JitterSeconds: s.JitterSeconds, BackfillOf: s.BackfillOf, Notice: s.Notice,
			ExcludeCalendars: s.ExcludeCalendars}
		if s.CatchUpWindow != "" {
			w, err := time.ParseDuration(s.CatchUpWindow)
			if err != nil {
				return domain.Alarm{}, fmt.Errorf("alarm %s: series.catch_up_window: %w", r.ID, err)
			}
			a.Series.CatchUpWindow = w
		}
	}
	return domain.Rehydrate(a)
}

func eventToRecord(e domain.Event) eventRecord {
	r := eventRecord{Type: typeEvent, AlarmID: e.AlarmID, Event: string(e.Type), At: stamp(e.At), Attempt: e.Attempt,
		ScheduledFor: stamp(e.ScheduledFor), Worker: e.Worker, Message: e.Message}
	if rc := e.Receipt; rc != nil {
		r.Receipt = &receiptRecord{DurationUS: rc.Duration.Microseconds(), HTTPStatus: rc.Status, ResponseType: rc.ContentType,
			ResponseBody: rc.Body, ResponseTruncated: rc.Truncated}
	}
	return r
}

// maxDurationUS is the longest duration a receipt can hold, in microseconds.
const maxDurationUS = math.MaxInt64 / int64(time.Microsecond)

// event is the record as the domain's event; a receipt is checked as an attempt
// keeps one (domain.Receipt.Kept, at most domain.MaxReceiptBody of body).
func (r eventRecord) event() (domain.Event, error) {
	if r.AlarmID == "" || r.Event == "" || r.At == nil {
		return domain.Event{}, fmt.Errorf("event: alarm_id, event and at are required")
	}
	e := domain.Event{AlarmID: r.AlarmID, Type: domain.EventType(r.Event), At: unstamp(r.At), Attempt: r.Attempt,
		ScheduledFor: unstamp(r.ScheduledFor), Worker: r.Worker, Message: r.Message}
	if rr := r.Receipt; rr != nil {
		rc := domain.Receipt{Duration: time.Duration(rr.DurationUS) * time.Microsecond, Status: rr.HTTPStatus,
			ContentType: rr.ResponseType, Body: rr.ResponseBody, Truncated: rr.ResponseTruncated}
		switch kept := rc.Kept(domain.MaxReceiptBody); {
		case rr.DurationUS < 0 || rr.DurationUS > maxDurationUS:
			return domain.Event{}, fmt.Errorf("event of alarm %s: receipt.duration_us must be 0 or more microseconds", r.AlarmID)
		case rr.HTTPStatus != 0 && (rr.HTTPStatus < 100 || rr.HTTPStatus > 999):
			return domain.Event{}, fmt.Errorf("event of alarm %s: receipt.http_status must be absent or an HTTP status, 100 to 999", r.AlarmID)
		case kept.ContentType != rc.ContentType:
			return domain.Event{}, fmt.Errorf("event of alarm %s: receipt.response_type must be at most 200 bytes of printable text", r.AlarmID)
		case len(rc.Body) > domain.MaxReceiptBody:
			return domain.Event{}, fmt.Errorf("event of alarm %s: receipt.response_body must be at most %d bytes", r.AlarmID, domain.MaxReceiptBody)
		}
		if len(rc.Body) == 0 {
			rc.Body = nil
		}
		e.Receipt = &rc
	}
	return e, nil
}

func endpointToRecord(e domain.Endpoint) endpointRecord {
	return endpointRecord{Type: typeEndpoint, Owner: e.Owner, Name: e.Name, URL: e.URL, Secrets: e.Secrets,
		TimeoutMS: e.Timeout.Milliseconds(), MaxInFlight: e.MaxInFlight, RatePerSecond: e.RatePerSecond,
		FailureURL: e.FailureURL, CreatedAt: stamp(e.CreatedAt), UpdatedAt: stamp(e.UpdatedAt)}
}

// endpoint is the record as the domain's endpoint, checked as a stored one
// (domain.ValidateEndpoint); the error names the field, never a secret.
func (r endpointRecord) endpoint() (domain.Endpoint, error) {
	e := domain.Endpoint{Owner: r.Owner, Name: r.Name, URL: r.URL, Secrets: r.Secrets,
		Timeout: time.Duration(r.TimeoutMS) * time.Millisecond, MaxInFlight: r.MaxInFlight, RatePerSecond: r.RatePerSecond,
		FailureURL: r.FailureURL, CreatedAt: unstamp(r.CreatedAt), UpdatedAt: unstamp(r.UpdatedAt)}
	if err := domain.ValidateEndpoint(e); err != nil {
		return domain.Endpoint{}, fmt.Errorf("endpoint %s/%s: %w", r.Owner, r.Name, err)
	}
	return e, nil
}

func tokenToRecord(t domain.Token) tokenRecord {
	return tokenRecord{Type: typeToken, ID: t.ID, Owner: t.Owner, Scope: string(t.Scope), Hash: t.Hash, Note: t.Note,
		CreatedAt: stamp(t.CreatedAt), RevokedAt: stamp(t.RevokedAt), LastUsedAt: stamp(t.LastUsedAt)}
}

func (r tokenRecord) token() (domain.Token, error) {
	t := domain.Token{ID: r.ID, Owner: r.Owner, Scope: domain.Scope(r.Scope), Hash: r.Hash, Note: r.Note,
		CreatedAt: unstamp(r.CreatedAt), RevokedAt: unstamp(r.RevokedAt), LastUsedAt: unstamp(r.LastUsedAt)}
	switch {
	case t.ID == "" || t.Owner == "":
		return domain.Token{}, fmt.Errorf("token: id and owner are required")
	case !t.Scope.Valid():
		return domain.Token{}, fmt.Errorf("token %s: scope %q is not owner, admin or admin:read", t.ID, r.Scope)
	case len(t.Hash) != 64:
		return domain.Token{}, fmt.Errorf("token %s: sha256 must be 64 hex digits", t.ID)
	}
	return t, nil
}

func calendarToRecord(c domain.Calendar) calendarRecord {
	r := calendarRecord{Type: typeCalendar, Owner: c.Owner, Name: c.Name, Timezone: c.Timezone,
		ExcludeDates: c.ExcludeDates, ExcludeWeekdays: c.ExcludeWeekdays, ExcludeRanges: make([]rangeRecord, len(c.ExcludeRanges)),
		CreatedAt: stamp(c.CreatedAt), UpdatedAt: stamp(c.UpdatedAt)}
	if r.ExcludeDates == nil {
		r.ExcludeDates = []string{}
	}
	if r.ExcludeWeekdays == nil {
		r.ExcludeWeekdays = []int{}
	}
	for i, d := range c.ExcludeRanges {
		r.ExcludeRanges[i] = rangeRecord(d)
	}
	return r
}

// calendar is the record as the domain's calendar, checked and normalised as a PUT's
// (domain.ValidateCalendar, domain.NormalizeCalendar); the error names the field.
func (r calendarRecord) calendar() (domain.Calendar, error) {
	c := domain.Calendar{Owner: r.Owner, Name: r.Name, Timezone: r.Timezone, ExcludeDates: r.ExcludeDates,
		ExcludeWeekdays: r.ExcludeWeekdays, ExcludeRanges: make([]domain.DateRange, len(r.ExcludeRanges)),
		CreatedAt: unstamp(r.CreatedAt), UpdatedAt: unstamp(r.UpdatedAt)}
	for i, d := range r.ExcludeRanges {
		c.ExcludeRanges[i] = domain.DateRange(d)
	}
	if err := domain.ValidateCalendar(c); err != nil {
		return domain.Calendar{}, fmt.Errorf("calendar %s/%s: %w", r.Owner, r.Name, err)
	}
	return domain.NormalizeCalendar(c), nil
}

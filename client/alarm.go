package client

import (
	"encoding/json"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Alarm is an alarm as the API shows its owner. A zero time means the API sent null:
// unset, or (NextFireAt) not a promise because the alarm is not active.
type Alarm struct {
	ID    string      `json:"id"`
	Label string      `json:"label"`
	Kind  domain.Kind `json:"kind"`

	FireAt   time.Time `json:"fire_at"`   // once: the instant asked for
	CronExpr string    `json:"cron_expr"` // cron: the expression as given
	Timezone string    `json:"timezone"`  // cron: the IANA zone it is read in

	NextFireAt   time.Time `json:"next_fire_at"`  // when the next attempt is due; zero unless active
	ScheduledFor time.Time `json:"scheduled_for"` // the occurrence current attempts belong to

	ConversationID string          `json:"conversation_id"`
	WakeMessage    string          `json:"wake_message"`
	Payload        json.RawMessage `json:"payload"` // the JSON as posted, byte for byte; "null" when none

	Status         domain.Status   `json:"status"`
	Delivery       domain.Delivery `json:"delivery"`
	IdempotencyKey string          `json:"idempotency_key"`
	MaxFailures    int             `json:"max_failures"`
	FailureCount   int             `json:"failure_count"` // failed deliveries of the current occurrence
	LastError      string          `json:"last_error"`

	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	LastFiredAt time.Time `json:"last_fired_at"`
	// Endpoint is the owner's endpoint its wakes go to; "" for the server's --wake-url.
	Endpoint string `json:"endpoint"`
	// Tags are the owner's key/value pairs on the alarm; empty when none.
	Tags map[string]string `json:"tags"`

	// The rest is a cron alarm's: a once alarm's view has none of it, and leaves it zero.
	// docs/schedules.md explains each option.

	// Misfire is what the series does with occurrences it missed; the server shows the
	// default, domain.MisfireFireOnce, when none was asked for.
	Misfire domain.Misfire `json:"misfire"`
	// CatchUpLimit is how many missed occurrences catch_up delivers at most; 0 unless
	// Misfire is domain.MisfireCatchUp.
	CatchUpLimit int `json:"catch_up_limit"`
	// CatchUpWindow is how far back catch_up reaches, as the server writes a Go duration
	// ("36h0m0s", for time.ParseDuration); "" for no limit.
	CatchUpWindow       string `json:"catch_up_window"`
	MaxConsecutiveSkips int    `json:"max_consecutive_skips"` // the breaker; 0 is off
	// StartAt and EndAt bound the occurrences; zero when unbounded.
	StartAt time.Time `json:"start_at"`
	EndAt   time.Time `json:"end_at"`
	// MaxFires ends the series after that many delivered occurrences; 0 is unbounded.
	MaxFires int `json:"max_fires"`
	// RemainingFires is how many MaxFires still allows; nil when unbounded. A pointer,
	// because 0 (the last one was delivered) and unbounded must differ.
	RemainingFires *int `json:"remaining_fires"`
	JitterSeconds  int  `json:"jitter_seconds"` // each occurrence falls due up to this late
	FireCount      int  `json:"fire_count"`     // occurrences delivered so far
	// SkipStreak is how many occurrences in a row were given up; the breaker compares
	// it with MaxConsecutiveSkips.
	SkipStreak int `json:"skip_streak"`
	// PausedReason is a pause's note, or the breaker's reason; PausedUntil is when a
	// pause ends by itself, zero when it does not.
	PausedReason string    `json:"paused_reason"`
	PausedUntil  time.Time `json:"paused_until"`
	// BackfillOf is, on a backfill (Backfill), the id of the series it delivers past
	// occurrences of; "" on every other alarm.
	BackfillOf string `json:"backfill_of"`
	// ExcludeCalendars names the owner's calendars (PutCalendar) whose days the series
	// delivers no occurrence on.
	ExcludeCalendars []string `json:"exclude_calendars"`
}

// Occurrence is one upcoming wake of an alarm.
type Occurrence struct {
	// ScheduledFor is the occurrence's time on the schedule; DueAt is when it falls due,
	// later by its jitter or its retry's backoff.
	ScheduledFor time.Time `json:"scheduled_for"`
	DueAt        time.Time `json:"due_at"`
	// OccurrenceKey is the Idempotency-Key the receiver will see for it.
	OccurrenceKey string `json:"occurrence_key"`
}

// Event is one row of an alarm's history, oldest first in a listing.
type Event struct {
	ID   int64            `json:"id"` // increasing in the order the server recorded them
	Type domain.EventType `json:"type"`
	At   time.Time        `json:"at"`
	// Attempt is the delivery attempt the event concerns; 0 when none.
	Attempt      int       `json:"attempt"`
	ScheduledFor time.Time `json:"scheduled_for"` // the occurrence it concerns; zero when none
	// OccurrenceKey is the Idempotency-Key the receiver saw for that occurrence; "" when
	// the event concerns none.
	OccurrenceKey string `json:"occurrence_key"`
	Worker        string `json:"worker"` // the worker that caused it; "" for owner and admin actions
	Message       string `json:"message"`
}

// AlarmPage is one page of an owner's alarms, newest first.
type AlarmPage struct {
	Alarms []Alarm `json:"alarms"`
	// NextCursor fetches the next page through ListAlarms.Cursor; "" on the last page,
	// and only there: a page filtered by tags and a status may hold fewer alarms than
	// asked, even none, and still carry one (AllAlarms goes on to the end).
	NextCursor string `json:"next_cursor"`
}

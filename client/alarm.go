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
	// NextCursor fetches the next page through ListAlarms.Cursor; "" on the last page.
	NextCursor string `json:"next_cursor"`
}

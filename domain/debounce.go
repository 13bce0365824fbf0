package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// OnDuplicate says what a create does when its owner already has an alarm with its
// idempotency key.
type OnDuplicate string

const (
	// OnDuplicateReturn (the default, also ""): the key's alarm, unchanged (deduped).
	OnDuplicateReturn OnDuplicate = "return"
	// OnDuplicateReplace debounces: the key's alarm, while it is active and no worker
	// holds it, takes the create's fire time (capped by the max wait), payload, label
	// and wake message; once it fired, ended or is being delivered, the create makes
	// the key's next alarm.
	OnDuplicateReplace OnDuplicate = "replace"
)

// Debounce is a create's request to replace the alarm of its idempotency key
// (OnDuplicateReplace). NewAlarm puts it on the alarm it builds for the store's
// CreateBatch; stores never keep it, and alarms read back carry nil.
type Debounce struct {
	// MaxWait caps every fire time of the key's alarm at its CreatedAt + MaxWait, however
	// often it is replaced; 0: no cap.
	MaxWait time.Duration
}

// debounce checks a Spec's on_duplicate and max_wait_seconds: replace takes a once
// alarm with an idempotency key; a max wait takes replace and is positive.
func (s Spec) debounce() (*Debounce, error) {
	switch s.OnDuplicate {
	case "", OnDuplicateReturn:
		if s.MaxWait != nil {
			return nil, invalid("max_wait_seconds", `is for "on_duplicate": "replace"`)
		}
		return nil, nil
	case OnDuplicateReplace:
	default:
		return nil, invalid("on_duplicate", `must be "return" or "replace", got %q`, s.OnDuplicate)
	}
	switch {
	case s.Kind != KindOnce:
		return nil, invalid("on_duplicate", `"replace" is for once alarms; a series is not debounced`)
	case s.IdempotencyKey == "":
		return nil, invalid("on_duplicate", `"replace" needs an idempotency_key: it replaces the alarm of that key`)
	case s.MaxWait == nil:
		return &Debounce{}, nil
	case *s.MaxWait <= 0:
		return nil, invalid("max_wait_seconds", "must be positive")
	case *s.MaxWait > MaxDelay:
		return nil, invalid("max_wait_seconds", "must be at most %d (ten years)", int64(MaxDelay/time.Second))
	}
	return &Debounce{MaxWait: *s.MaxWait}, nil
}

// capped is at, or the latest instant the max wait allows an alarm created at
// createdAt to fire at when that is earlier.
func (d Debounce) capped(at, createdAt time.Time) time.Time {
	if d.MaxWait <= 0 {
		return at
	}
	if last := createdAt.Add(d.MaxWait); last.Before(at) {
		return last
	}
	return at
}

// Repeat is what CreateBatch does with a create whose idempotency key is taken, the
// same on every store (OnRepeat).
type Repeat int

const (
	// RepeatReturns: the key's alarm is returned unchanged (deduped).
	RepeatReturns Repeat = iota
	// RepeatReplaces: the key's alarm takes the create's Replace.
	RepeatReplaces
	// RepeatTakesKey: the key's alarm gives its key up (KeyReleased) and the create is
	// inserted as the key's next alarm.
	RepeatTakesKey
)

// OnRepeat decides what the create r does with twin, the stored alarm of r's key. Only
// a create with a Debounce acts on twin, and only on a once alarm's key: a series keeps
// its key and is returned, as without replace. A Replaceable twin is replaced; any
// other once alarm (fired, cancelled, failed, or being delivered) passes its key on.
func OnRepeat(twin, r Alarm) Repeat {
	switch {
	case r.Debounce == nil || twin.Kind != KindOnce:
		return RepeatReturns
	case Replaceable(twin):
		return RepeatReplaces
	}
	return RepeatTakesKey
}

// Replaceable reports whether a, the once alarm of a key, is the target of a replace:
// active and leased to no worker. A store's write of the replace is conditional on it.
func Replaceable(a Alarm) bool {
	return a.Kind == KindOnce && a.Status == StatusActive && a.ClaimedBy == ""
}

// EventReplaced: a repeat create of the key replaced the alarm (Message: the old and
// new fire times). EventKeyReleased: the alarm gave its idempotency key up to the
// key's next alarm (Message: the key).
const (
	EventReplaced    EventType = "replaced"
	EventKeyReleased EventType = "key_released"
)

// Replacement is what a replace writes: the alarm's new fire time (fire_at,
// next_fire_at and scheduled_for alike), payload, label and wake message, its
// deliveries started afresh, stamped at the repeat's creation, and its event.
type Replacement struct {
	AlarmID     string
	FireAt      time.Time
	Payload     json.RawMessage
	Label       string
	WakeMessage string
	UpdatedAt   time.Time
	Event       Event
}

// Replace is the replacement of a (Replaceable) by r, a repeat create of a's key built
// by NewAlarm with a Debounce: r's fire time, capped at a's CreatedAt plus r's max
// wait, and r's payload, label and wake message. Pure: the store applies it with a
// conditional write (a must still be Replaceable), so it needs no lock between the
// read of a and the write; CreatedAt, the cap's origin, never changes.
func Replace(a, r Alarm) Replacement {
	at := r.FireAt
	if r.Debounce != nil {
		at = r.Debounce.capped(at, a.CreatedAt)
	}
	return Replacement{
		AlarmID: a.ID, FireAt: at, Payload: r.Payload, Label: r.Label, WakeMessage: r.WakeMessage,
		UpdatedAt: r.CreatedAt,
		Event: Event{AlarmID: a.ID, Type: EventReplaced, At: r.CreatedAt, ScheduledFor: at,
			Message: fmt.Sprintf("fire time %s -> %s", a.NextFireAt.UTC().Format(eventTime), at.UTC().Format(eventTime))},
	}
}

// eventTime writes the times of a replaced event's message to the millisecond, the
// finest precision every store keeps, so the text does not depend on the store.
const eventTime = "2006-01-02T15:04:05.000Z07:00"

// ApplyTo is a as the replacement leaves it.
func (p Replacement) ApplyTo(a Alarm) Alarm {
	a.FireAt, a.NextFireAt, a.ScheduledFor = p.FireAt, p.FireAt, p.FireAt
	a.Payload, a.Label, a.WakeMessage = p.Payload, p.Label, p.WakeMessage
	a.FailureCount, a.LastError = 0, ""
	a.UpdatedAt = p.UpdatedAt
	return a
}

// KeyReleased is the event of a giving its key up to the key's next alarm, made by the
// create r.
func KeyReleased(a, r Alarm) Event {
	why := string(a.Status)
	if a.Status == StatusActive {
		why = "being delivered"
	}
	return Event{AlarmID: a.ID, Type: EventKeyReleased, At: r.CreatedAt,
		Message: fmt.Sprintf("idempotency key %q passed to the key's next alarm: this one is %s", a.IdempotencyKey, why)}
}

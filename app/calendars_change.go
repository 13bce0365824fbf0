package app

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// CalendarsStateName is the ports.StateStore name every change to a calendar (put,
// delete, any owner's) writes a new value under. A dispatcher caches the owners'
// calendars and reads them again when the value differs from the one it last saw:
// that is how a calendar edit reaches every series using it without touching them.
const CalendarsStateName = "calendars"

// CalendarsChange is the value stored under CalendarsStateName: the last change, for
// people and logs. Version is new at every change.
type CalendarsChange struct {
	Version string    `json:"version"`
	At      time.Time `json:"at"`
	Owner   string    `json:"owner"`
	Name    string    `json:"name"`
	Action  string    `json:"action"` // "put" or "deleted"
}

// NewCalendarsChange is the value of a change made now.
func NewCalendarsChange(owner, name, action string, now time.Time) string {
	var v [16]byte
	_, _ = rand.Read(v[:]) // never fails (crypto/rand)
	b, _ := json.Marshal(CalendarsChange{Version: hex.EncodeToString(v[:]), At: now.UTC(), Owner: owner, Name: name, Action: action})
	return string(b)
}

// CalendarCacheMaxAge bounds how long a dispatcher keeps an owner's calendars without
// reading them again, even when the state value did not move (a bump that failed).
const CalendarCacheMaxAge = time.Minute

package app

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// CalendarsStateName is the ports.StateStore name under which every change to a
// calendar (put, delete, any owner's) is recorded: a short log of the calendars changed
// lately, each with a new version (CalendarChanges). A dispatcher caches calendars one
// by one and, when the value moves, drops only those whose entry moved, so an owner's
// edits never cost other owners' series a read.
const CalendarsStateName = "calendars"

// CalendarCacheMaxAge bounds how long a dispatcher keeps a calendar without reading it
// again, even when its entry did not move (a change whose record failed).
const CalendarCacheMaxAge = time.Minute

// calendarChangesKept is how long an entry stays in the log: well past
// CalendarCacheMaxAge, so that a calendar cached before its change is dropped by the
// entry or has expired by itself, whatever the skew between nodes' clocks.
const calendarChangesKept = 3 * CalendarCacheMaxAge

// MaxCalendarChanges bounds the log, which every node reads each second while series
// with calendars fire: past it an owner's entries fold into one for the whole owner.
const MaxCalendarChanges = 128

// CalendarChanges is the value stored under CalendarsStateName.
type CalendarChanges struct {
	// Reset is new whenever entries left the log before they aged out: a reader that
	// sees it move drops every calendar it holds.
	Reset   string           `json:"reset"`
	Changes []CalendarChange `json:"changes"` // oldest first; the last is the latest change
}

// CalendarChange is the latest change of one calendar, or of all of an owner's (Name
// "": its entries folded into one).
type CalendarChange struct {
	Owner   string    `json:"owner"`
	Name    string    `json:"name"`
	Action  string    `json:"action"` // "put", "deleted", or "folded"
	Version string    `json:"version"`
	At      time.Time `json:"at"`
}

// ParseCalendarChanges reads a stored value; "" is the empty log. A value of another
// shape (a node of an earlier version wrote it) is an error: the reader then drops
// everything it holds, as it cannot tell what changed.
func ParseCalendarChanges(value string) (CalendarChanges, error) {
	var l CalendarChanges
	if value == "" {
		return l, nil
	}
	d := json.NewDecoder(bytes.NewReader([]byte(value)))
	d.DisallowUnknownFields()
	err := d.Decode(&l)
	return l, err
}

// Encode is the log as stored.
func (l CalendarChanges) Encode() string {
	b, err := json.Marshal(l)
	if err != nil {
		panic(err) // strings and times only: cannot fail
	}
	return string(b)
}

// With is the log after the owner's calendar name changed (action) at now: its entry
// replaced by a new one at the end, entries older than calendarChangesKept gone, and,
// past MaxCalendarChanges, the entries of the owner with the most folded into one for
// the whole owner (a new Reset when every owner is down to one).
func (l CalendarChanges) With(owner, name, action string, now time.Time) CalendarChanges {
	out := CalendarChanges{Reset: l.Reset}
	for _, c := range l.Changes {
		if now.Sub(c.At) < calendarChangesKept && (c.Owner != owner || c.Name != name) {
			out.Changes = append(out.Changes, c)
		}
	}
	out.Changes = append(out.Changes, CalendarChange{Owner: owner, Name: name, Action: action, Version: newVersion(), At: now.UTC()})
	for len(out.Changes) > MaxCalendarChanges {
		busiest, n := busiestOwner(out.Changes)
		if n < 2 {
			out.Changes = out.Changes[len(out.Changes)-MaxCalendarChanges:]
			out.Reset = newVersion()
			break
		}
		out.Changes = slices.DeleteFunc(out.Changes, func(c CalendarChange) bool { return c.Owner == busiest })
		out.Changes = append(out.Changes, CalendarChange{Owner: busiest, Action: "folded", Version: newVersion(), At: now.UTC()})
	}
	return out
}

// ResetCalendarChanges is an empty log that drops every calendar every reader holds:
// what changes start from when they could not be added to the log as it is (others
// kept writing first, or it has a shape no reader knows).
func ResetCalendarChanges() CalendarChanges {
	return CalendarChanges{Reset: newVersion()}
}

// busiestOwner is the owner with the most entries, and how many.
func busiestOwner(cs []CalendarChange) (string, int) {
	count := map[string]int{}
	best, most := "", 0
	for _, c := range cs {
		count[c.Owner]++
		if count[c.Owner] > most {
			best, most = c.Owner, count[c.Owner]
		}
	}
	return best, most
}

func newVersion() string {
	var v [8]byte
	_, _ = rand.Read(v[:]) // never fails (crypto/rand)
	return hex.EncodeToString(v[:])
}

// Package page is how every store sizes a page of alarms (List, AdminList) or of an
// alarm's events, and cuts a page read with one row more than asked.
package page

import (
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Size is the page size a list call asks for with limit: ports.DefaultListLimit for
// none (limit <= 0), never more than ports.MaxListLimit.
func Size(limit int) int {
	if limit <= 0 {
		return ports.DefaultListLimit
	}
	return min(limit, ports.MaxListLimit)
}

// Events is how many events an Events call returns at most for limit:
// ports.MaxEventsLimit for none (limit <= 0) and never more.
func Events(limit int) int {
	if limit <= 0 {
		return ports.MaxEventsLimit
	}
	return min(limit, ports.MaxEventsLimit)
}

// Attempts is how many attempts an Attempts call returns at most for limit:
// ports.DefaultAttemptsLimit for none (limit <= 0), never more than
// ports.MaxAttemptsLimit.
func Attempts(limit int) int {
	if limit <= 0 {
		return ports.DefaultAttemptsLimit
	}
	return min(limit, ports.MaxAttemptsLimit)
}

// CutAttempts is Cut for a page of attempts, newest first, read with one row more.
func CutAttempts(attempts []domain.Event, size int) ([]domain.Event, string) {
	if len(attempts) <= size {
		return attempts, ""
	}
	attempts = attempts[:size]
	return attempts, ports.EncodeAttemptCursor(attempts[size-1].ID)
}

// Cut takes what a page statement read when it asked for size+1 rows (the row more
// says whether another page follows) and returns the page and the cursor of the next
// one, "" on the last page.
func Cut(alarms []domain.Alarm, size int) ([]domain.Alarm, string) {
	if len(alarms) <= size {
		return alarms, ""
	}
	alarms = alarms[:size]
	return alarms, ports.EncodeListCursor(alarms[size-1].ID)
}

// Bounded ends a page that was read whole (the memory store's) where a database's rows
// would have ended it: after the alarm that brings its payloads and wake messages past
// ports.MaxListBytes, with that alarm's cursor when alarms are left after it.
func Bounded(alarms []domain.Alarm, next string) ([]domain.Alarm, string) {
	left := ports.MaxListBytes
	for i, a := range alarms {
		if left -= len(a.Payload) + len(a.WakeMessage); left < 0 && i < len(alarms)-1 {
			return alarms[:i+1], ports.EncodeListCursor(a.ID)
		}
	}
	return alarms, next
}

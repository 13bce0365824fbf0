package app

import (
	"fmt"
	"testing"
	"time"
)

// A change replaces its calendar's entry at the end of the log with a new version;
// entries older than calendarChangesKept leave it; past MaxCalendarChanges the owner
// with the most entries folds into one entry for the whole owner, and when every owner
// is down to one the oldest go and Reset moves.
func TestCalendarChangesWith(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var l CalendarChanges
	l = l.With("alice", "a", "put", now)
	first := l.Changes[0].Version
	l = l.With("bob", "a", "put", now.Add(time.Second))
	l = l.With("alice", "a", "deleted", now.Add(2*time.Second))
	if len(l.Changes) != 2 || l.Changes[1].Owner != "alice" || l.Changes[1].Action != "deleted" || l.Changes[1].Version == first {
		t.Errorf("after a second change of alice/a: %+v", l.Changes)
	}
	back, err := ParseCalendarChanges(l.Encode())
	if err != nil || len(back.Changes) != 2 || back.Changes[1] != l.Changes[1] {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if l = l.With("carol", "x", "put", now.Add(calendarChangesKept+time.Second)); len(l.Changes) != 2 || l.Changes[0].Owner != "alice" {
		t.Errorf("bob's entry older than the log keeps: %+v", l.Changes)
	}

	reset := l.Reset
	for i := range MaxCalendarChanges {
		l = l.With("dave", fmt.Sprint("d", i), "put", now.Add(calendarChangesKept))
	}
	if n := len(l.Changes); n > MaxCalendarChanges || l.Reset != reset {
		t.Fatalf("%d entries, Reset moved %t; want at most %d and no reset", n, l.Reset != reset, MaxCalendarChanges)
	}
	var folded, alice bool
	for _, c := range l.Changes {
		folded = folded || (c.Owner == "dave" && c.Name == "" && c.Action == "folded")
		alice = alice || (c.Owner == "alice" && c.Name == "a")
	}
	if !folded || !alice {
		t.Errorf("past the limit: dave's entries folded %t, alice's kept %t; want both", folded, alice)
	}

	var many CalendarChanges
	for i := range MaxCalendarChanges + 1 {
		many = many.With(fmt.Sprint("owner", i), "x", "put", now)
	}
	if len(many.Changes) != MaxCalendarChanges || many.Reset == "" || many.Changes[0].Owner != "owner1" {
		t.Errorf("one entry per owner past the limit: %d entries, Reset %q, first %s", len(many.Changes), many.Reset, many.Changes[0].Owner)
	}

	if _, err := ParseCalendarChanges(`{"version":"abc","owner":"alice","name":"a","action":"put"}`); err == nil {
		t.Error("a value of an earlier shape parsed as a log")
	}
	if l, err := ParseCalendarChanges(""); err != nil || len(l.Changes) != 0 {
		t.Errorf(`ParseCalendarChanges("") = %+v, %v`, l, err)
	}
}

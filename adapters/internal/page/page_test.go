package page

import (
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func TestSize(t *testing.T) {
	for _, c := range []struct{ limit, size, events int }{
		{0, ports.DefaultListLimit, ports.MaxEventsLimit},
		{-1, ports.DefaultListLimit, ports.MaxEventsLimit},
		{1, 1, 1},
		{ports.MaxListLimit + 1, ports.MaxListLimit, min(ports.MaxListLimit+1, ports.MaxEventsLimit)},
		{ports.MaxEventsLimit + 1, ports.MaxListLimit, ports.MaxEventsLimit},
	} {
		if got := Size(c.limit); got != c.size {
			t.Errorf("Size(%d) = %d, want %d", c.limit, got, c.size)
		}
		if got := Events(c.limit); got != c.events {
			t.Errorf("Events(%d) = %d, want %d", c.limit, got, c.events)
		}
	}
}

func TestCut(t *testing.T) {
	read := []domain.Alarm{{ID: "c"}, {ID: "b"}, {ID: "a"}}
	if got, next := Cut(read, 3); len(got) != 3 || next != "" {
		t.Errorf("Cut(3 rows, 3) = %d alarms, cursor %q; want all 3 and no cursor", len(got), next)
	}
	got, next := Cut(read, 2)
	if len(got) != 2 || next != ports.EncodeListCursor("b") {
		t.Errorf("Cut(3 rows, 2) = %d alarms, cursor %q; want 2 and the cursor after b", len(got), next)
	}
}

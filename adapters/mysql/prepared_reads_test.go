package mysql

import (
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A read's text is prepared on its second call, and from then on it answers through the
// binary protocol exactly what it answered as text: every column of the alarm (times
// cut to microseconds, NULLs, payload bytes, tags), a walked tag page's hits and edge
// (its cursor), an owner page, the events.
func TestReadsPreparedOnTheirSecondCallAnswerAsText(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 6, func(i int) domain.Alarm {
		a := newDueAlarm(t, "o", `{"i": 1, "é": "\u00e9 🎉"}`)
		a.Label = "label"
		if i%2 == 0 {
			a.Tags = map[string]string{"customer": "7", "plan": "pro"}
		} else {
			a.Tags = map[string]string{"customer": "7"}
		}
		return a
	})
	if _, err := s.Mutate(ctx, ports.OwnedBy("o"), as[1].ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, changed := domain.Cancel(a, now)
		return tr, changed, nil
	}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Alarms []domain.Alarm
		Next   string
	}
	reads := map[string]func() (any, error){
		"get": func() (any, error) { return s.Get(ctx, ports.OwnedBy("o"), as[1].ID) },
		"owner page": func() (any, error) {
			a, next, err := s.List(ctx, ports.ListFilter{Scope: ports.OwnedBy("o"), Limit: 2})
			return page{a, next}, err
		},
		// Two pairs: the walked page (hit and edge columns), its walk cut at 64 entries.
		"two pairs": func() (any, error) {
			a, next, err := s.List(ctx, ports.ListFilter{Scope: ports.OwnedBy("o"), Limit: 2,
				Tags: []domain.TagFilter{{Key: "customer", Value: "7"}, {Key: "plan", Value: "pro"}}})
			return page{a, next}, err
		},
		"events": func() (any, error) { return s.Events(ctx, ports.OwnedBy("o"), as[1].ID, 10) },
	}
	for name, read := range reads {
		before := s.reads.Held()
		asText, err := read()
		if err != nil {
			t.Fatalf("%s as text: %v", name, err)
		}
		if got := s.reads.Held(); got != before {
			t.Errorf("%s: %d reads prepared after its first call, want %d: a text is prepared on its second", name, got, before)
		}
		for call := 2; call <= 3; call++ {
			runs := s.reads.Runs()
			got, err := read()
			if err != nil {
				t.Fatalf("%s, call %d (prepared): %v", name, call, err)
			}
			if s.reads.Runs() == runs {
				t.Errorf("%s, call %d: no read ran prepared", name, call)
			}
			if !reflect.DeepEqual(got, asText) {
				t.Errorf("%s, call %d (prepared) =\n%+v\nwant, as text:\n%+v", name, call, got, asText)
			}
		}
		if got := s.reads.Held(); got <= before {
			t.Errorf("%s: %d reads prepared after its second call, want more than %d", name, got, before)
		}
	}
	got, err := s.Get(ctx, ports.OwnedBy("o"), as[1].ID)
	if err != nil || got.Status != domain.StatusCancelled || !got.UpdatedAt.Equal(testNow.Truncate(time.Microsecond)) ||
		string(got.Payload) != string(as[1].Payload) || !reflect.DeepEqual(got.Tags, as[1].Tags) {
		t.Errorf("Get (prepared) = %+v, %v; want the cancelled alarm, updated at %v, its payload and tags", got, err, testNow)
	}
}

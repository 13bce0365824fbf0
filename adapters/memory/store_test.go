package memory_test

import (
	"errors"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
)

// A caller changing a payload slice, the one it passed in or one it got back, does not
// change the store; a nil clock is the process clock in UTC; calls after Close fail.
func TestPayloadCopiesClockClose(t *testing.T) {
	ctx := t.Context()
	s := memory.New(nil)
	at := time.Now().Add(time.Hour)
	a, err := domain.NewAlarm("01900000-0000-7000-8000-000000000001",
		domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at, Payload: []byte(`{"k":1}`)}, time.Now(), domain.Defaults{MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := contract.CreateOne(ctx, s, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Payload[2], got.Payload[3] = 'X', 'Y'
	if again, err := s.Get(ctx, ports.OwnedBy("o"), a.ID); err != nil || string(again.Payload) != `{"k":1}` {
		t.Errorf("stored payload = %s, %v; want it unchanged by the caller's slices", again.Payload, err)
	}
	if now, err := s.Now(ctx); err != nil || now.Location() != time.UTC || time.Since(now) > time.Minute {
		t.Errorf("Now with a nil clock = %v, %v; want the process clock in UTC", now, err)
	}
	_ = s.Close()
	if _, err := s.Get(ctx, ports.OwnedBy("o"), a.ID); !errors.Is(err, memory.ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
}

// Stores opened on one database see each other's writes and keep their own clocks and
// Close, as processes sharing a database do.
func TestOpenSharesTheDatabase(t *testing.T) {
	ctx := t.Context()
	first := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s := memory.New(fixedClock(first))
	other := s.Open(fixedClock(first.Add(time.Hour)))
	at := first.Add(time.Minute)
	a, err := domain.NewAlarm("01900000-0000-7000-8000-000000000001",
		domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at}, first, domain.Defaults{MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
		t.Fatal(err)
	}
	if now, err := other.Now(ctx); err != nil || !now.Equal(first.Add(time.Hour)) {
		t.Errorf("the second Store's Now = %v, %v; want its own clock's", now, err)
	}
	_ = s.Close()
	if got, err := other.Get(ctx, ports.OwnedBy("o"), a.ID); err != nil || got.ID != a.ID {
		t.Errorf("the second Store, after the first closed: Get = %v; want the first one's alarm", err)
	}
	if _, err := s.Get(ctx, ports.OwnedBy("o"), a.ID); !errors.Is(err, memory.ErrClosed) {
		t.Errorf("Get on the closed Store: %v, want ErrClosed", err)
	}
}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

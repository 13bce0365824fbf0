package owners

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// calendarReads is the part of a store the use cases naming calendars touch: one
// series, and an owner's many calendars, recording the names each read asks for; a
// read of all of them fails the test. Every other method panics (the nil Store).
type calendarReads struct {
	ports.Store
	t      *testing.T
	series domain.Alarm
	cals   []domain.Calendar

	mu    sync.Mutex
	asked [][]string // the names of each GetCalendars
}

func (s *calendarReads) Capabilities() ports.Capabilities { return ports.Capabilities{} }

func (s *calendarReads) GetCalendars(_ context.Context, owner string, names []string) ([]domain.Calendar, error) {
	s.mu.Lock()
	s.asked = append(s.asked, slices.Clone(names))
	s.mu.Unlock()
	var out []domain.Calendar
	for _, c := range s.cals {
		if c.Owner == owner && slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *calendarReads) ListCalendars(context.Context, string) ([]domain.Calendar, error) {
	s.t.Error("a use case read every calendar of the owner")
	return s.cals, nil
}

func (s *calendarReads) Get(context.Context, ports.Scope, string) (domain.Alarm, error) {
	return s.series, nil
}

func (s *calendarReads) Mutate(_ context.Context, _ ports.Scope, _ string, fn ports.MutateFunc) (domain.Alarm, error) {
	t, _, err := fn(s.series, s.series.CreatedAt)
	if err != nil {
		return domain.Alarm{}, err
	}
	return t.ApplyTo(s.series), nil
}

func (s *calendarReads) CreateBatch(_ context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	for i, a := range as {
		out[i] = ports.CreateResult{Alarm: a}
	}
	return out, nil
}

// reads returns the names asked for since the last call, and forgets them.
func (s *calendarReads) reads() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.asked
	s.asked = nil
	return r
}

// Preview, create, batch, update and upcoming read only the calendars the
// series names, however many the owner has: never the owner's other calendars. A batch
// reads each name once.
func TestUseCasesReadOnlyTheNamedCalendars(t *testing.T) {
	ctx := t.Context()
	clock := newTestClock()
	s := &calendarReads{t: t}
	for i := range 300 {
		s.cals = append(s.cals, domain.Calendar{Owner: "alice", Name: fmt.Sprintf("cal%03d", i), Timezone: "UTC"})
	}
	alarms := NewAlarms(s, clock, nil, AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 3}}, nil)
	series := func(names ...string) domain.Spec {
		return domain.Spec{Owner: "alice", Kind: domain.KindCron, CronExpr: "0 9 * * *", Timezone: "UTC",
			Series: domain.Series{ExcludeCalendars: names}}
	}
	want := func(what string, reads [][]string, wantReads ...[]string) {
		t.Helper()
		if !slices.EqualFunc(reads, wantReads, slices.Equal[[]string]) {
			t.Errorf("%s read the calendars %q, want %q", what, reads, wantReads)
		}
	}

	if _, err := alarms.PreviewExcluding(ctx, "alice", "0 9 * * *", "UTC", []string{"cal007", "cal123"}, time.Time{}, 3); err != nil {
		t.Fatal(err)
	}
	want("a preview", s.reads(), []string{"cal007", "cal123"})

	a, _, err := alarms.Create(ctx, series("cal001"))
	if err != nil {
		t.Fatal(err)
	}
	want("a create", s.reads(), []string{"cal001"})

	if _, err := alarms.CreateBatch(ctx, []domain.Spec{series("cal001", "cal002"), series("cal002"), series(), series("cal003", "cal001")}); err != nil {
		t.Fatal(err)
	}
	want("a batch", s.reads(), []string{"cal001", "cal002"}, []string{"cal003"})

	s.series = a
	if _, _, err := alarms.Upcoming(ctx, "alice", a.ID, 3); err != nil {
		t.Fatal(err)
	}
	want("upcoming", s.reads(), []string{"cal001"})

	expr := "0 10 * * *"
	if _, err := alarms.Update(ctx, "alice", a.ID, domain.Patch{CronExpr: &expr}); err != nil {
		t.Fatal(err)
	}
	want("a patch moving the schedule", s.reads(), []string{"cal001"})
	names := []string{"cal200", "cal201"}
	if _, err := alarms.Update(ctx, "alice", a.ID, domain.Patch{ExcludeCalendars: &names}); err != nil {
		t.Fatal(err)
	}
	want("a patch naming calendars", s.reads(), names)
	label := "renamed"
	if _, err := alarms.Update(ctx, "alice", a.ID, domain.Patch{Label: &label}); err != nil {
		t.Fatal(err)
	}
	want("a patch of the label", s.reads())
}

// heldList is a store whose ListCalendars waits until release is closed, saying when
// it started.
type heldList struct {
	ports.Store
	started chan string
	release chan struct{}
}

func (s *heldList) ListCalendars(_ context.Context, owner string) ([]domain.Calendar, error) {
	s.started <- owner
	<-s.release
	return []domain.Calendar{}, nil
}

// A node reads one list of an owner's calendars at a time: the owner's second while
// the first runs is refused at once (ErrRateLimited, with a Retry-After), without a
// store read; another owner's goes through, and so does the owner's once the first
// has ended.
func TestOneCalendarListPerOwnerAtATime(t *testing.T) {
	store := &heldList{started: make(chan string, 3), release: make(chan struct{})}
	cals := NewCalendars(store, newTestClock(), domain.CalendarLimits{}, nil)
	done := make(chan error, 2)
	for _, owner := range []string{"alice", "bob"} {
		go func() { _, err := cals.List(t.Context(), owner); done <- err }()
		<-store.started
	}
	second := make(chan error, 1)
	go func() { _, err := cals.List(t.Context(), "alice"); second <- err }()
	var err error
	select {
	case err = <-second:
	case <-time.After(5 * time.Second):
		close(store.release)
		t.Fatal("alice's second list went to the store while her first ran")
	}
	var le *domain.LimitError
	if !errors.Is(err, domain.ErrRateLimited) || !errors.As(err, &le) || le.RetryAfter <= 0 {
		t.Fatalf("alice's second list while her first runs: %v, want ErrRateLimited with a Retry-After", err)
	}
	close(store.release)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("a first list: %v", err)
		}
	}
	store.release = make(chan struct{})
	close(store.release)
	if _, err := cals.List(t.Context(), "alice"); err != nil {
		t.Fatalf("alice's list once her first had ended: %v", err)
	}
}

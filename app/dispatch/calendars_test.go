package dispatch

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// calendarsFake holds calendars and the "calendars" log, recording the names of every
// read.
type calendarsFake struct {
	mu    sync.Mutex
	cals  map[calendarKey]domain.Calendar
	log   app.CalendarChanges
	value string // the stored log; "" none
	reads [][]string
}

func (f *calendarsFake) GetCalendars(_ context.Context, owner string, names []string) ([]domain.Calendar, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, slices.Clone(names))
	var out []domain.Calendar
	for _, n := range names {
		if c, ok := f.cals[calendarKey{owner, n}]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *calendarsFake) GetState(context.Context, string) (ports.State, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ports.State{Value: f.value}, f.value != "", nil
}

// put stores a calendar excluding date and records the change, as owners.Calendars does.
func (f *calendarsFake) put(owner, name, date string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cals[calendarKey{owner, name}] = domain.Calendar{Owner: owner, Name: name, Timezone: "UTC", ExcludeDates: []string{date}}
	f.log = f.log.With(owner, name, "put", time.Now())
	f.value = f.log.Encode()
}

// setLog stores l as the log, as another writer would.
func (f *calendarsFake) setLog(l app.CalendarChanges) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log, f.value = l, l.Encode()
}

// taken returns the names read since the last call, and forgets them.
func (f *calendarsFake) taken() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reads
	f.reads = nil
	return r
}

// The dispatcher's cache reads only the calendars a series names, each once until it
// changes; a change to one calendar (its own owner's or another's) drops that one
// alone, an owner's folded entries drop all of that owner's, a reset or a log it cannot
// read drops everything.
func TestCalendarCacheDropsOnlyWhatChanged(t *testing.T) {
	ctx := t.Context()
	f := &calendarsFake{cals: map[calendarKey]domain.Calendar{}}
	for _, k := range []calendarKey{{"alice", "a"}, {"alice", "b"}, {"alice", "other"}, {"bob", "a"}} {
		f.put(k.owner, k.name, "2030-01-01")
	}
	c := newCalendarCache(f)
	c.watch.every = 0 // look at the log at every firing, not once a second
	series := func(owner string, names ...string) domain.Alarm {
		return domain.Alarm{Owner: owner, Kind: domain.KindCron, Series: domain.Series{ExcludeCalendars: names}}
	}
	fire := func(a domain.Alarm) []domain.Calendar {
		t.Helper()
		cals, err := c.forAlarm(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return cals
	}
	want := func(what string, wantReads ...[]string) {
		t.Helper()
		if got := f.taken(); !slices.EqualFunc(got, wantReads, slices.Equal[[]string]) {
			t.Errorf("%s: read %q, want %q", what, got, wantReads)
		}
	}
	aliceAB, bobA := series("alice", "a", "b", "none"), series("bob", "a")

	if cals := fire(aliceAB); len(cals) != 2 {
		t.Errorf("alice's series got %d calendars, want a and b", len(cals))
	}
	want("the first firing", []string{"a", "b", "none"})
	fire(bobA)
	fire(aliceAB)
	want("bob's first firing, and alice's second", []string{"a"})

	f.put("alice", "other", "2030-01-02")
	f.put("bob", "a", "2030-01-03")
	fire(aliceAB)
	want("alice's series after changes to calendars it does not name")
	if cals := fire(bobA); len(cals) != 1 || cals[0].ExcludeDates[0] != "2030-01-03" {
		t.Errorf("bob's series after its calendar changed: %+v", cals)
	}
	want("bob's series after its calendar changed", []string{"a"})

	f.put("alice", "b", "2030-01-04")
	fire(aliceAB)
	want("alice's series after one of its calendars changed", []string{"b"})
	f.put("alice", "none", "2030-01-05")
	if cals := fire(aliceAB); len(cals) != 3 {
		t.Errorf("alice's series after a calendar it names was created: %d calendars, want 3", len(cals))
	}
	want("alice's series after a calendar it names was created", []string{"none"})

	folded := f.log
	for i := range app.MaxCalendarChanges {
		folded = folded.With("carol", string(rune('a'+i%26))+string(rune('a'+i/26)), "put", time.Now())
	}
	f.setLog(folded)
	fire(aliceAB)
	fire(bobA)
	want("a log where carol's entries folded")
	f.setLog(folded.With("alice", "", "folded", time.Now()))
	fire(aliceAB)
	fire(bobA)
	want("alice's entries folded into one", []string{"a", "b", "none"})

	f.setLog(app.ResetCalendarChanges().With("dave", "x", "put", time.Now()))
	fire(aliceAB)
	fire(bobA)
	want("a reset", []string{"a", "b", "none"}, []string{"a"})
	f.mu.Lock()
	f.value = `{"version":"from an older node"}`
	f.mu.Unlock()
	fire(bobA)
	want("a log of another shape", []string{"a"})
}

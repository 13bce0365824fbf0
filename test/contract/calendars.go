package contract

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var calendarCases = []testCase{
	{"RoundTrip", testCalendarRoundTrip},
	{"ReplaceKeepsCreatedAt", testCalendarReplace},
	{"LimitPerOwner", testCalendarLimitPerOwner},
	{"ListOrder", testCalendarListOrder},
	{"GetCalendarsReadsTheNamedOnly", testCalendarsNamed},
	{"Unknown", testCalendarUnknown},
	{"DeleteRefusedWhileASeriesUsesIt", testCalendarInUse},
	{"UpdateMovesTheSeriesToOtherCalendars", testCalendarRelink},
	{"DeletedAndFinishedSeriesDoNotHoldIt", testCalendarFinishedSeries},
	{"BulkCreatedSeriesHoldIt", testCalendarBulkCreated},
}

// newCalendar is a valid calendar of owner with a date, a weekday and a range.
func (e *env) newCalendar(owner, name string) domain.Calendar {
	return domain.Calendar{Owner: owner, Name: name, Timezone: "Europe/Berlin", ExcludeDates: []string{"2026-12-25"},
		ExcludeWeekdays: []int{0, 6}, ExcludeRanges: []domain.DateRange{{From: "2026-12-24", To: "2026-12-31"}}}
}

// putCalendar stores c, which the suite first checks is valid and normalises (the
// port's callers do), and returns what the store returned.
func (e *env) putCalendar(c domain.Calendar) domain.Calendar {
	e.t.Helper()
	if err := domain.ValidateCalendar(c); err != nil {
		e.t.Fatalf("the suite's calendar is invalid: %v", err)
	}
	stored, err := e.store.PutCalendar(e.ctx, domain.NormalizeCalendar(c), 0)
	if err != nil {
		e.t.Fatalf("PutCalendar(%s/%s): %v", c.Owner, c.Name, err)
	}
	return stored
}

func (e *env) getCalendar(owner, name string) domain.Calendar {
	e.t.Helper()
	c, err := e.store.GetCalendar(e.ctx, owner, name)
	if err != nil {
		e.t.Fatalf("GetCalendar(%s, %s): %v", owner, name, err)
	}
	return c
}

func (e *env) wantCalendar(what string, got, want domain.Calendar) {
	e.t.Helper()
	d := ""
	if got.Owner != want.Owner || got.Name != want.Name || got.Timezone != want.Timezone {
		d += fmt.Sprintf("\n  key/zone = %s/%s %s, want %s/%s %s", got.Owner, got.Name, got.Timezone, want.Owner, want.Name, want.Timezone)
	}
	if !slices.Equal(got.ExcludeDates, want.ExcludeDates) || got.ExcludeDates == nil {
		d += fmt.Sprintf("\n  ExcludeDates = %#v, want %#v", got.ExcludeDates, want.ExcludeDates)
	}
	if !slices.Equal(got.ExcludeWeekdays, want.ExcludeWeekdays) || got.ExcludeWeekdays == nil {
		d += fmt.Sprintf("\n  ExcludeWeekdays = %#v, want %#v", got.ExcludeWeekdays, want.ExcludeWeekdays)
	}
	if !slices.Equal(got.ExcludeRanges, want.ExcludeRanges) || got.ExcludeRanges == nil {
		d += fmt.Sprintf("\n  ExcludeRanges = %#v, want %#v", got.ExcludeRanges, want.ExcludeRanges)
	}
	if !e.sameTime(got.CreatedAt, want.CreatedAt) || !e.sameTime(got.UpdatedAt, want.UpdatedAt) {
		d += fmt.Sprintf("\n  stamps = %s %s, want %s %s", fmtTime(got.CreatedAt), fmtTime(got.UpdatedAt),
			fmtTime(want.CreatedAt), fmtTime(want.UpdatedAt))
	}
	if d != "" {
		e.t.Errorf("%s (calendar %s/%s) differs:%s", what, want.Owner, want.Name, d)
	}
}

// Every list comes back as given (normalised: sorted, no repeats), long ones included
// (twice the default limit of a node's entries); empty lists as empty, never nil. Put stamps both times with
// the store's now.
func testCalendarRoundTrip(t *testing.T, e *env) {
	c := e.newCalendar(alice, "holidays")
	c.CreatedAt = e.now().Add(-time.Hour) // the store's now wins
	want := domain.NormalizeCalendar(c)
	want.CreatedAt, want.UpdatedAt = e.now(), e.now()
	e.wantCalendar("PutCalendar result", e.putCalendar(c), want)
	e.wantCalendar("GetCalendar", e.getCalendar(alice, "holidays"), want)

	big := domain.Calendar{Owner: alice, Name: "big", Timezone: "America/New_York"}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range domain.DefaultMaxCalendarEntries {
		d := day.AddDate(0, 0, i).Format("2006-01-02")
		big.ExcludeDates = append(big.ExcludeDates, d)
		big.ExcludeRanges = append(big.ExcludeRanges, domain.DateRange{From: d, To: day.AddDate(0, 0, i+3).Format("2006-01-02")})
	}
	wantBig := domain.NormalizeCalendar(big)
	wantBig.ExcludeWeekdays = []int{}
	wantBig.CreatedAt, wantBig.UpdatedAt = e.now(), e.now()
	e.wantCalendar("PutCalendar of the largest calendar", e.putCalendar(big), wantBig)
	e.wantCalendar("GetCalendar of the largest calendar", e.getCalendar(alice, "big"), wantBig)

	bare := domain.Calendar{Owner: alice, Name: "bare", Timezone: "UTC"}
	wantBare := domain.NormalizeCalendar(bare)
	wantBare.CreatedAt, wantBare.UpdatedAt = e.now(), e.now()
	e.wantCalendar("GetCalendar of a calendar excluding nothing", func() domain.Calendar { e.putCalendar(bare); return e.getCalendar(alice, "bare") }(), wantBare)
}

// A second Put of a name replaces every list and the zone, keeps CreatedAt and moves
// UpdatedAt.
func testCalendarReplace(t *testing.T, e *env) {
	first := e.putCalendar(e.newCalendar(alice, "holidays"))
	e.clock.Advance(time.Minute)
	c := domain.Calendar{Owner: alice, Name: "holidays", Timezone: "Asia/Tokyo", ExcludeDates: []string{"2027-01-01"}}
	want := domain.NormalizeCalendar(c)
	want.ExcludeWeekdays, want.ExcludeRanges = []int{}, []domain.DateRange{}
	want.CreatedAt, want.UpdatedAt = first.CreatedAt, e.now()
	e.wantCalendar("PutCalendar replacing", e.putCalendar(c), want)
	e.wantCalendar("GetCalendar after the replace", e.getCalendar(alice, "holidays"), want)
}

// PutCalendar with a limit refuses an owner's new calendar once it has that many, with
// domain.CalendarsOverLimit and nothing written; a replace at the limit, another
// owner's calendar and a put without a limit go through.
func testCalendarLimitPerOwner(t *testing.T, e *env) {
	put := func(owner, name string, limit int) error {
		_, err := e.store.PutCalendar(e.ctx, domain.NormalizeCalendar(e.newCalendar(owner, name)), limit)
		return err
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := put(alice, name, 3); err != nil {
			t.Fatalf("PutCalendar(%s) under the limit: %v", name, err)
		}
	}
	err := put(alice, "d", 3)
	var le *domain.LimitError
	if !errors.Is(err, domain.ErrQuotaExceeded) || !errors.As(err, &le) || le.Field != "name" {
		t.Errorf("PutCalendar of a 4th with a limit of 3: %v, want domain.CalendarsOverLimit", err)
	}
	if _, err := e.store.GetCalendar(e.ctx, alice, "d"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("the refused calendar: GetCalendar = %v, want ErrNotFound", err)
	}
	if err := put(alice, "b", 3); err != nil {
		t.Errorf("replacing one at the limit: %v", err)
	}
	if err := put(bob, "d", 1); err != nil {
		t.Errorf("another owner's first: %v", err)
	}
	if err := put(alice, "d", 0); err != nil {
		t.Errorf("without a limit: %v", err)
	}
	if err := put(alice, "e", 4); !errors.Is(err, domain.ErrQuotaExceeded) {
		t.Errorf("a 5th with a limit of 4: %v, want refused", err)
	}
	if err := put(alice, "e", 5); err != nil {
		t.Errorf("a 5th with a limit of 5: %v", err)
	}
}

// ListCalendars: the owner's, by name in byte order; none is an empty slice.
func testCalendarListOrder(t *testing.T, e *env) {
	for _, name := range []string{"ab", "a_b", "a0", "a-b"} {
		e.putCalendar(e.newCalendar(alice, name))
		e.putCalendar(e.newCalendar(bob, name+"x"))
		e.clock.Advance(time.Second)
	}
	got, err := e.store.ListCalendars(e.ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Owner+"/"+c.Name)
	}
	if want := []string{alice + "/a-b", alice + "/a0", alice + "/a_b", alice + "/ab"}; !slices.Equal(names, want) {
		t.Errorf("ListCalendars(alice) = %q, want %q", names, want)
	}
	none, err := e.store.ListCalendars(e.ctx, "carol")
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("ListCalendars(carol) = %#v, %v; want an empty slice", none, err)
	}
}

// GetCalendars: the owner's calendars among the names, by name in byte order, each
// once; unknown names and other owners' calendars left out; no names, an empty slice.
// More names than one read takes (a store may split them) come back the same way.
func testCalendarsNamed(t *testing.T, e *env) {
	for _, name := range []string{"ab", "a_b", "a0", "a-b", "z9"} {
		e.putCalendar(e.newCalendar(alice, name))
	}
	e.putCalendar(e.newCalendar(bob, "bobs"))
	many := []string{"nope", "ab"}
	for i := range 2 * domain.MaxSeriesCalendars {
		many = append(many, fmt.Sprintf("none%02d", i))
	}
	many = append(many, "z9", "a-b")
	for _, c := range []struct {
		names []string
		want  []string
	}{
		{[]string{"ab", "a-b", "nope", "bobs"}, []string{"a-b", "ab"}},
		{[]string{"a0", "a0"}, []string{"a0"}},
		{[]string{"z9"}, []string{"z9"}},
		{many, []string{"a-b", "ab", "z9"}},
		{nil, []string{}},
	} {
		got, err := e.store.GetCalendars(e.ctx, alice, c.names)
		if err != nil {
			t.Fatalf("GetCalendars(alice, %q): %v", c.names, err)
		}
		names := []string{}
		for _, g := range got {
			if g.Owner != alice {
				t.Errorf("GetCalendars(alice, %q) returned %s's calendar %s", c.names, g.Owner, g.Name)
			}
			names = append(names, g.Name)
		}
		if !slices.Equal(names, c.want) || got == nil {
			t.Errorf("GetCalendars(alice, %q) = %q (nil %v), want %q", c.names, names, got == nil, c.want)
		}
	}
	got, err := e.store.GetCalendars(e.ctx, alice, []string{"ab"})
	if err != nil || len(got) != 1 {
		t.Fatalf("GetCalendars(alice, ab) = %v, %v", got, err)
	}
	e.wantCalendar("GetCalendars", got[0], e.getCalendar(alice, "ab"))
}

// An unknown name, or another owner's, is ErrNotFound for Get and Delete.
func testCalendarUnknown(t *testing.T, e *env) {
	e.putCalendar(e.newCalendar(bob, "holidays"))
	_, err := e.store.GetCalendar(e.ctx, alice, "holidays")
	wantErr(t, "GetCalendar of another owner's", err, ports.ErrNotFound)
	wantErr(t, "DeleteCalendar of another owner's", e.store.DeleteCalendar(e.ctx, alice, "holidays"), ports.ErrNotFound)
	wantErr(t, "DeleteCalendar of an unknown one", e.store.DeleteCalendar(e.ctx, bob, "nope"), ports.ErrNotFound)
	e.getCalendar(bob, "holidays")
}

// calendarSeries creates a series of owner naming calendars, as the API does.
func (e *env) calendarSeries(owner string, calendars ...string) domain.Alarm {
	s := cronSpec(owner, "0 9 * * *", "Europe/Berlin")
	s.Series.ExcludeCalendars = calendars
	return e.create(s)
}

func (e *env) wantUser(owner, name, want string) {
	e.t.Helper()
	id, used, err := e.store.CalendarUser(e.ctx, owner, name)
	if err != nil || used != (want != "") || id != want {
		e.t.Errorf("CalendarUser(%s, %s) = %q, %t, %v; want %q", owner, name, id, used, err, want)
	}
}

// A calendar an active or paused series names cannot be deleted: the refusal is a
// *CalendarInUseError naming the series, and an ErrConflict; nothing changes. A
// series of another owner naming the same name holds nothing of this owner's.
func testCalendarInUse(t *testing.T, e *env) {
	e.putCalendar(e.newCalendar(alice, "holidays"))
	e.putCalendar(e.newCalendar(alice, "spare"))
	e.putCalendar(e.newCalendar(bob, "spare"))
	s := e.calendarSeries(alice, "spare", "holidays")
	e.calendarSeries(bob, "holidays")
	e.wantUser(alice, "holidays", s.ID)
	e.wantUser(alice, "other", "")
	if got := e.get(alice, s.ID).Series.ExcludeCalendars; !slices.Equal(got, []string{"spare", "holidays"}) {
		t.Errorf("the series' exclude_calendars = %q", got)
	}
	err := e.store.DeleteCalendar(e.ctx, alice, "holidays")
	var inUse *ports.CalendarInUseError
	if !errors.As(err, &inUse) || inUse.SeriesID != s.ID || !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("DeleteCalendar of a calendar in use: %v, want a CalendarInUseError naming %s", err, s.ID)
	}
	e.getCalendar(alice, "holidays")

	e.mutate(alice, s.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, changed, err := domain.Pause(a, now)
		return t, changed, err
	})
	wantErr(t, "DeleteCalendar of a calendar a paused series names", e.store.DeleteCalendar(e.ctx, alice, "holidays"), ports.ErrConflict)

	e.mutate(alice, s.ID, cancelFn)
	e.wantUser(alice, "holidays", "")
	if err := e.store.DeleteCalendar(e.ctx, alice, "holidays"); err != nil {
		t.Fatalf("DeleteCalendar once its series was cancelled: %v", err)
	}
	_, err = e.store.GetCalendar(e.ctx, alice, "holidays")
	wantErr(t, "GetCalendar after the delete", err, ports.ErrNotFound)
	e.getCalendar(bob, "spare")
}

// An update that changes a series' calendars moves its index rows: the calendar it no
// longer names is free, the one it names now is held. An update of something else
// changes nothing.
func testCalendarRelink(t *testing.T, e *env) {
	for _, n := range []string{"a", "b", "c"} {
		e.putCalendar(e.newCalendar(alice, n))
	}
	s := e.calendarSeries(alice, "a", "b")
	patch := func(p domain.Patch) {
		e.mutate(alice, s.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			return domain.Update(a, p, now)
		})
	}
	label := "renamed"
	patch(domain.Patch{Label: &label})
	e.wantUser(alice, "a", s.ID)
	patch(domain.Patch{ExcludeCalendars: &[]string{"b", "c"}})
	e.wantUser(alice, "a", "")
	e.wantUser(alice, "b", s.ID)
	e.wantUser(alice, "c", s.ID)
	if err := e.store.DeleteCalendar(e.ctx, alice, "a"); err != nil {
		t.Fatalf("DeleteCalendar of the calendar the series left: %v", err)
	}
	patch(domain.Patch{ExcludeCalendars: &[]string{}})
	e.wantUser(alice, "b", "")
	e.wantUser(alice, "c", "")
	if got := e.get(alice, s.ID).Series.ExcludeCalendars; len(got) != 0 {
		t.Errorf("exclude_calendars after clearing = %q", got)
	}
}

// A series CreateMany writes (a bulk create, an import) holds its calendars as one
// CreateBatch writes does.
func testCalendarBulkCreated(t *testing.T, e *env) {
	e.putCalendar(e.newCalendar(alice, "holidays"))
	s := cronSpec(alice, "0 9 * * *", "UTC")
	s.Series.ExcludeCalendars = []string{"holidays"}
	a := e.build(s)
	e.createMany([]domain.Alarm{e.build(e.onceIn(alice, time.Hour)), a})
	e.wantUser(alice, "holidays", a.ID)
	wantErr(t, "DeleteCalendar of a calendar a bulk-created series names", e.store.DeleteCalendar(e.ctx, alice, "holidays"), ports.ErrConflict)
}

// A deleted series, or one that finished, holds no calendar; a batch whose items are
// deduped links only the series it inserted.
func testCalendarFinishedSeries(t *testing.T, e *env) {
	e.putCalendar(e.newCalendar(alice, "holidays"))
	s := e.calendarSeries(alice, "holidays")
	if _, err := e.store.DeleteAlarms(e.ctx, []string{s.ID}); err != nil {
		t.Fatal(err)
	}
	e.wantUser(alice, "holidays", "")

	keyed := cronSpec(alice, "0 9 * * *", "UTC")
	keyed.IdempotencyKey, keyed.Series.ExcludeCalendars = "k1", []string{"holidays"}
	first := e.build(keyed)
	twin := e.build(keyed)
	rs := e.createBatch(first, twin)
	if rs[0].Err != nil || rs[1].Err != nil || !rs[1].Deduped {
		t.Fatalf("batch: %+v", rs)
	}
	e.wantUser(alice, "holidays", first.ID)
	e.mutate(alice, first.ID, cancelFn)
	if err := e.store.DeleteCalendar(e.ctx, alice, "holidays"); err != nil {
		t.Fatalf("DeleteCalendar with only finished series naming it: %v", err)
	}
}

package contract

import (
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// exportAllCalendars walks ExportCalendars to the end, page calendars at a time.
func exportAllCalendars(t *testing.T, e *env, ex ports.Exporter, page int) []domain.Calendar {
	t.Helper()
	var all []domain.Calendar
	var after ports.CalendarCursor
	for {
		cs, err := ex.ExportCalendars(e.ctx, after, page)
		if err != nil {
			t.Fatalf("ExportCalendars(%+v, %d): %v", after, page, err)
		}
		if len(cs) > page {
			t.Fatalf("ExportCalendars(%+v, %d) returned %d calendars", after, page, len(cs))
		}
		if len(cs) == 0 {
			return all
		}
		all = append(all, cs...)
		last := cs[len(cs)-1]
		after = ports.CalendarCursor{Owner: last.Owner, Name: last.Name}
	}
}

// Pages of every size cover every owner's calendars once, by (owner, name) in byte
// order (an owner that is a prefix of another, names that sort apart by byte), each as
// GetCalendar returns it.
func testExportCalendarsPaged(t *testing.T, e *env) {
	ex, _ := e.exporter()
	var want []domain.Calendar
	for _, owner := range []string{bob, alice, "alice2", "Zed"} {
		for _, name := range []string{"b", "a-b", "a_b", "a0"} {
			e.putCalendar(e.newCalendar(owner, name))
			want = append(want, e.getCalendar(owner, name))
			e.clock.Advance(time.Second)
		}
	}
	slices.SortFunc(want, func(x, y domain.Calendar) int {
		if x.Owner != y.Owner {
			return compareBytes(x.Owner, y.Owner)
		}
		return compareBytes(x.Name, y.Name)
	})
	for _, page := range []int{1, 3, 4, 5, 100} {
		got := exportAllCalendars(t, e, ex, page)
		if len(got) != len(want) {
			t.Errorf("ExportCalendars by pages of %d: %d calendars, want %d", page, len(got), len(want))
			continue
		}
		for i := range want {
			e.wantCalendar("ExportCalendars by pages", got[i], want[i])
		}
	}
}

func compareBytes(x, y string) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Imported calendars keep every field, their stamps included; series imported after
// them hold them as created ones do (a delete is refused), and ExportCalendars reads
// them back.
func testImportCalendarsKeepStamps(t *testing.T, e *env) {
	ex, im := e.exporter()
	full := domain.NormalizeCalendar(e.newCalendar(alice, "holidays"))
	full.CreatedAt, full.UpdatedAt = e.now().Add(-48*time.Hour), e.now().Add(-time.Hour)
	bare := domain.NormalizeCalendar(domain.Calendar{Owner: bob, Name: "none", Timezone: "UTC"})
	bare.CreatedAt, bare.UpdatedAt = e.now().Add(-time.Minute), e.now().Add(-time.Minute)
	if err := im.ImportCalendars(e.ctx, []domain.Calendar{full, bare}); err != nil {
		t.Fatalf("ImportCalendars: %v", err)
	}
	e.wantCalendar("GetCalendar after ImportCalendars", e.getCalendar(alice, "holidays"), full)
	e.wantCalendar("GetCalendar after ImportCalendars", e.getCalendar(bob, "none"), bare)
	if got := exportAllCalendars(t, e, ex, 1); len(got) != 2 {
		t.Errorf("ExportCalendars after ImportCalendars: %d calendars, want 2", len(got))
	}

	s := cronSpec(alice, "0 9 * * *", "Europe/Berlin")
	s.Series.ExcludeCalendars = []string{"holidays"}
	series := e.build(s)
	e.importAlarms(im, []domain.Alarm{series})
	e.wantUser(alice, "holidays", series.ID)
	wantErr(t, "DeleteCalendar of a calendar an imported series names", e.store.DeleteCalendar(e.ctx, alice, "holidays"), ports.ErrConflict)
	if got := e.adminGet(series.ID).Series.ExcludeCalendars; !slices.Equal(got, []string{"holidays"}) {
		t.Errorf("the imported series' exclude_calendars = %q", got)
	}
	if err := im.ImportCalendars(e.ctx, nil); err != nil {
		t.Errorf("ImportCalendars(nil) = %v, want nil", err)
	}
}

// An (owner, name) already stored or repeated is ErrConflict, and nothing is written.
func testImportCalendarsConflict(t *testing.T, e *env) {
	_, im := e.exporter()
	e.putCalendar(e.newCalendar(alice, "holidays"))
	stamp := func(c domain.Calendar) domain.Calendar {
		c = domain.NormalizeCalendar(c)
		c.CreatedAt, c.UpdatedAt = e.now(), e.now()
		return c
	}
	for name, batch := range map[string][]domain.Calendar{
		"a stored name":   {stamp(e.newCalendar(bob, "new")), stamp(e.newCalendar(alice, "holidays"))},
		"a repeated name": {stamp(e.newCalendar(bob, "twice")), stamp(e.newCalendar(bob, "twice"))},
	} {
		wantErr(t, "ImportCalendars with "+name, im.ImportCalendars(e.ctx, batch), ports.ErrConflict)
	}
	for _, owner := range []string{alice, bob} {
		cs, err := e.store.ListCalendars(e.ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{alice: 1, bob: 0}[owner]; len(cs) != want {
			t.Errorf("after the refused imports ListCalendars(%s) has %d calendars, want %d", owner, len(cs), want)
		}
	}
}

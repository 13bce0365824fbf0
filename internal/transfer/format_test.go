package transfer_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/internal/transfer"
	"github.com/chronoshq/chronos/ports"
)

// testdata/format1.jsonl is what `chronos export` wrote before calendars moved (format
// 1, a filled cluster as transfertest.Fill made it then): it still verifies and
// imports whole, its series naming no calendar. A format-1 file that holds a calendar
// record, or a series' exclude_calendars, is damaged: refused.
func TestImportReadsFormat1(t *testing.T) {
	ctx := context.Background()
	file, err := os.ReadFile("testdata/format1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(file, []byte(`{"type":"header","format":1,`)) {
		t.Fatal("testdata/format1.jsonl is not a format-1 export")
	}
	store, counts, err := transfer.Verify(bytes.NewReader(file))
	want := transfer.Counts{Alarms: 10, Events: 10, Endpoints: 2, Tokens: 3, States: 2}
	if err != nil || store != "sqlite" || counts != want {
		t.Fatalf("Verify of a format-1 file = %s %+v, %v; want sqlite %+v", store, counts, err, want)
	}
	dst := memory.New(nil)
	res, err := transfer.Import(ctx, dst, bytes.NewReader(file), transfer.ImportOptions{})
	if err != nil || res.Counts != want || res.LeasesCleared != 2 {
		t.Fatalf("Import of a format-1 file = %+v, %v; want %+v and 2 leases cleared", res, err, want)
	}
	as, _, err := dst.List(ctx, ports.ListFilter{Scope: ports.AnyOwner, Limit: ports.MaxListLimit})
	if err != nil || len(as) != 10 {
		t.Fatalf("after the import: %d alarms (%v), want 10", len(as), err)
	}
	for _, a := range as {
		if len(a.Series.ExcludeCalendars) != 0 {
			t.Errorf("alarm %s names calendars %q after a format-1 import", a.ID, a.Series.ExcludeCalendars)
		}
	}
	series, err := dst.Get(ctx, ports.AnyOwner, "0190f0c0-0000-7000-8000-000000000005")
	if err != nil || series.Series.CatchUpLimit != 20 || series.Series.MaxFires != 500 {
		t.Errorf("the format-1 series after the import: %+v, %v; want its options kept", series.Series, err)
	}

	lines := strings.Split(strings.TrimSpace(string(file)), "\n")
	calendar := `{"type":"calendar","owner":"carol","name":"holidays","timezone":"UTC","exclude_dates":[],"exclude_weekdays":[0],"exclude_ranges":[]}`
	withCalendar := strings.Join(append(lines[:len(lines)-1:len(lines)-1], calendar, lines[len(lines)-1]), "\n")
	excluding := strings.Replace(string(file), `"series":{"misfire":"catch_up",`, `"series":{"exclude_calendars":["holidays"],"misfire":"catch_up",`, 1)
	if excluding == string(file) {
		t.Fatal("the format-1 file has no catch-up series to edit")
	}
	for name, c := range map[string]struct{ file, want string }{
		"a calendar record":        {withCalendar, "calendar record in a format 1 file"},
		"series exclude_calendars": {excluding, "exclude_calendars in a format 1 file"},
	} {
		if _, _, err := transfer.Verify(strings.NewReader(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Verify of a format-1 file with %s = %v, want an error containing %q", name, err, c.want)
		}
	}
}

// testdata/format2.jsonl is what `chronos export` wrote before the attempt log moved
// (format 2, a filled cluster as transfertest.Fill made it then, from SQLite): it still
// verifies and imports whole, its alarms with their histories and an empty attempt log.
// A format-2 file whose event carries a receipt is damaged: refused.
func TestImportReadsFormat2(t *testing.T) {
	ctx := context.Background()
	file, err := os.ReadFile("testdata/format2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(file, []byte(`{"type":"header","format":2,`)) {
		t.Fatal("testdata/format2.jsonl is not a format-2 export")
	}
	want := transfer.Counts{Alarms: 10, Events: 10, Endpoints: 2, Tokens: 3, States: 2, Calendars: 2}
	if store, counts, err := transfer.Verify(bytes.NewReader(file)); err != nil || store != "sqlite" || counts != want {
		t.Fatalf("Verify of a format-2 file = %s %+v, %v; want sqlite %+v", store, counts, err, want)
	}
	dst := memory.New(nil)
	res, err := transfer.Import(ctx, dst, bytes.NewReader(file), transfer.ImportOptions{})
	if err != nil || res.Counts != want {
		t.Fatalf("Import of a format-2 file = %+v, %v; want %+v", res, err, want)
	}
	fired := "0190f0c0-0000-7000-8000-000000000002"
	history, err := dst.Events(ctx, ports.AnyOwner, fired, 0)
	if err != nil || len(history) != 4 { // created, retry_scheduled, triggered, fired
		t.Fatalf("the history of %s after the import: %d events (%v), want 4", fired, len(history), err)
	}
	if attempts, _, err := dst.Attempts(ctx, ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: fired}); err != nil || len(attempts) != 0 {
		t.Errorf("the attempt log of %s after a format-2 import: %d attempts (%v), want none (format 2 has none)", fired, len(attempts), err)
	}

	withReceipt := strings.Replace(string(file), `"message":"HTTP 502: bad gateway"}`, `"message":"HTTP 502: bad gateway","receipt":{"duration_us":5}}`, 1)
	if withReceipt == string(file) {
		t.Fatal("the format-2 file has no failed attempt to edit")
	}
	if _, _, err := transfer.Verify(strings.NewReader(withReceipt)); err == nil || !strings.Contains(err.Error(), "receipt in a format 2 file") {
		t.Errorf("Verify of a format-2 file with a receipt = %v, want it refused as damaged", err)
	}
}

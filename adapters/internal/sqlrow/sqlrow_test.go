package sqlrow

import (
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// fakeRows hands out rows of values, assigning each to its target by type as a driver
// would.
type fakeRows struct {
	rows [][]any
	next int
}

func (f *fakeRows) Next() bool { f.next++; return f.next <= len(f.rows) }
func (f *fakeRows) Err() error { return nil }
func (f *fakeRows) Scan(dest ...any) error {
	row := f.rows[f.next-1]
	if len(row) != len(dest) {
		return errors.New("wrong number of targets")
	}
	for i, v := range row {
		switch d := dest[i].(type) {
		case *string:
			*d = v.(string)
		case *int:
			*d = v.(int)
		case *int64:
			*d = v.(int64)
		case *float64:
			*d = v.(float64)
		case *[]byte:
			*d = []byte(v.(string))
		case *sql.NullString:
			*d = v.(sql.NullString)
		case *sql.NullTime:
			*d = v.(sql.NullTime)
		default:
			return errors.New("unexpected target")
		}
	}
	return nil
}

var at = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestAlarmsScanConvertsNulls(t *testing.T) {
	null, set := sql.NullTime{}, sql.NullTime{Time: at, Valid: true}
	row := []any{"id1", "alice", "l", "once", set, "", "", set,
		set, "", "wake", `{"a":1}`, "active", "at_least_once",
		sql.NullString{}, 3, 0, "", sql.NullString{String: "w", Valid: true}, set,
		set, set, null,
		sql.NullString{}, 0, 0, "", null,
		"", sql.NullString{}, sql.NullString{}}
	series := slices.Clone(row)
	series[23], series[24], series[25], series[26], series[27] = sql.NullString{String: `{"misfire":"skip","max_fires":9}`, Valid: true}, 4, 2, "the breaker", set
	series[28] = "billing"
	series[29], series[30] = sql.NullString{String: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Valid: true}, sql.NullString{String: "k=v", Valid: true}
	rs := &fakeRows{rows: [][]any{series, row}}
	got, err := NewAlarms(NullTime, NullString).All(rs, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := got[1]
	if len(got) != 2 || a.ID != "id1" || a.Kind != domain.KindOnce || a.ClaimedBy != "w" || a.IdempotencyKey != "" ||
		!a.ClaimedAt.Equal(at) || !a.LastFiredAt.IsZero() || string(a.Payload) != `{"a":1}` || a.MaxFailures != 3 {
		t.Errorf("scanned %+v", got)
	}
	// The scanner's targets are reused: the second row keeps none of the first's series.
	if !a.Series.IsZero() || a.FireCount != 0 || a.SkipStreak != 0 || a.PausedReason != "" || !a.PausedUntil.IsZero() ||
		a.Endpoint != "" || a.TraceParent != "" || a.TraceState != "" {
		t.Errorf("a row without series options or state scanned as %+v", a)
	}
	s := got[0]
	if !reflect.DeepEqual(s.Series, domain.Series{Misfire: domain.MisfireSkip, MaxFires: 9}) || s.FireCount != 4 || s.SkipStreak != 2 ||
		s.PausedReason != "the breaker" || !s.PausedUntil.Equal(at) || s.Endpoint != "billing" ||
		s.TraceParent != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" || s.TraceState != "k=v" {
		t.Errorf("series row scanned as %+v", s)
	}
}

// A row whose series is not the JSON of one is reported, not read as no options.
func TestAlarmsScanRefusesBadSeries(t *testing.T) {
	set := sql.NullTime{Time: at, Valid: true}
	row := []any{"id1", "alice", "l", "cron", sql.NullTime{}, "* * * * *", "UTC", set,
		set, "", "", `null`, "active", "at_least_once",
		sql.NullString{}, 3, 0, "", sql.NullString{}, sql.NullTime{},
		set, set, sql.NullTime{},
		sql.NullString{String: `{"start_at":"yesterday"}`, Valid: true}, 0, 0, "", sql.NullTime{},
		"", sql.NullString{}, sql.NullString{}}
	if _, err := NewAlarms(NullTime, NullString).All(&fakeRows{rows: [][]any{row}}, 1); err == nil {
		t.Error("a series with a bad start_at scanned without an error")
	}
}

func TestScanWorkerStats(t *testing.T) {
	set := sql.NullTime{Time: at, Valid: true}
	for _, c := range []struct {
		stats   string
		want    domain.WorkerStats
		wantErr bool
	}{
		{"{}", domain.WorkerStats{}, false},
		{"", domain.WorkerStats{}, false},
		{`{"delivered":3,"endpoints":[{"owner":"shop","name":"billing","queued":4,"in_flight":8,"held_back":12}]}`,
			domain.WorkerStats{Delivered: 3, Endpoints: []domain.EndpointLoad{{Owner: "shop", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 12}}}, false},
		{"not json", domain.WorkerStats{}, true},
	} {
		rs := &fakeRows{rows: [][]any{{"w", "h", 7, "v1", c.stats, set, set}}, next: 1}
		w, err := ScanWorker(rs, NullTime)
		if (err != nil) != c.wantErr || err == nil && (!reflect.DeepEqual(w.Stats, c.want) || w.PID != 7 || !w.HeartbeatAt.Equal(at)) {
			t.Errorf("stats %q: %+v, %v", c.stats, w, err)
		}
	}
}

func TestAppendEvent(t *testing.T) {
	e := domain.Event{AlarmID: "a", Type: domain.EventCreated, At: at, Worker: "w"}
	args := AppendEvent(nil, e, func(t time.Time) any { return t.UnixMilli() })
	if len(args) != EventParams || args[0] != "a" || args[2] != at.UnixMilli() || args[5] != "w" {
		t.Errorf("AppendEvent = %v", args)
	}
}

// Affected returns ExecContext's error as it is, else the result's count.
func TestAffected(t *testing.T) {
	failed := errors.New("exec failed")
	if n, err := Affected(nil, failed); n != 0 || err != failed {
		t.Errorf("Affected(nil, err) = %d, %v; want 0, the exec's error", n, err)
	}
	if n, err := Affected(driverResult(3), nil); n != 3 || err != nil {
		t.Errorf("Affected(3 rows) = %d, %v; want 3, nil", n, err)
	}
}

type driverResult int64

func (r driverResult) LastInsertId() (int64, error) { return 0, nil }
func (r driverResult) RowsAffected() (int64, error) { return int64(r), nil }

// An endpoint's secrets come back exactly and in order (quotes, backslashes, non-ASCII),
// its timeout to the millisecond; a secrets column that is not a JSON array is an error
// that quotes none of it.
func TestScanEndpoint(t *testing.T) {
	set := sql.NullTime{Time: at, Valid: true}
	secrets := []string{`whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`, `a "quoted" \ secret — é 😀`}
	e := domain.Endpoint{Owner: "alice", Name: "billing", URL: "https://example.com/hook", Secrets: secrets,
		Timeout: 1500 * time.Millisecond, MaxInFlight: 8, RatePerSecond: 2.5, FailureURL: "https://example.com/fail"}
	row := append(EndpointValues(e), set, set)
	if len(row) != EndpointParams {
		t.Fatalf("EndpointValues and the stamps are %d values, EndpointParams says %d", len(row), EndpointParams)
	}
	got, err := scanEndpointRow(row)
	if err != nil {
		t.Fatal(err)
	}
	want := e
	want.CreatedAt, want.UpdatedAt = at, at
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ScanEndpoint = %+v, want %+v", got, want)
	}
	if EncodeSecrets(nil) != "[]" {
		t.Errorf("EncodeSecrets(nil) = %s, want []", EncodeSecrets(nil))
	}
	for _, bad := range []string{`whsec_notjson`, `null`, `{"a":1}`, `[1]`} {
		row[3] = bad
		if _, err := scanEndpointRow(row); err == nil || strings.Contains(err.Error(), "whsec") {
			t.Errorf("secrets column %s: error %v, want one quoting nothing of it", bad, err)
		}
	}
}

func scanEndpointRow(row []any) (domain.Endpoint, error) {
	return ScanEndpoint(&fakeRows{rows: [][]any{row}, next: 1}, NullTime)
}

// An event row binds one value per column every store's insert names, receipt or not,
// in the columns' order: the receipt's after the event's, NULLs for an event without one.
func TestEventRow(t *testing.T) {
	if len(EventRowColumnNames) != EventRowParams || EventRowColumnNames[0] != "alarm_id" ||
		EventRowColumnNames[EventParams] != "duration_us" {
		t.Fatalf("EventRowColumnNames = %q, want %d names, alarm_id first, duration_us after the event's", EventRowColumnNames, EventRowParams)
	}
	at := func(time.Time) any { return "t" }
	plain := AppendEventRow(nil, domain.Event{AlarmID: "a1", Type: domain.EventFired}, at)
	attempt := AppendEventRow(nil, domain.Event{AlarmID: "a1", Type: domain.EventFired,
		Receipt: &domain.Receipt{Duration: 3 * time.Millisecond, Status: 200}}, at)
	if len(plain) != EventRowParams || len(attempt) != EventRowParams {
		t.Fatalf("rows of %d and %d values, want %d", len(plain), len(attempt), EventRowParams)
	}
	if plain[0] != "a1" || plain[EventParams] != nil || attempt[EventParams] != int64(3000) || attempt[EventParams+1] != int64(200) {
		t.Errorf("rows %v and %v: want the alarm id first, then no receipt (NULL) and a receipt of 3000 µs, status 200", plain, attempt)
	}
}

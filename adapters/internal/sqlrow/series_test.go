package sqlrow

import (
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Every option comes back exactly: the times to the nanosecond and in UTC whatever
// zone they were given in, the window to the nanosecond. The zero Series is NULL.
func TestSeriesRoundTrip(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    domain.Series
		text string // "" means NULL; "*" means any non-empty text
	}{
		{"zero", domain.Series{}, ""},
		{"misfire only", domain.Series{Misfire: domain.MisfireSkip}, `{"misfire":"skip"}`},
		{"every option", domain.Series{
			Misfire:             domain.MisfireCatchUp,
			CatchUpLimit:        250,
			CatchUpWindow:       36*time.Hour + 1,
			MaxConsecutiveSkips: 7,
			StartAt:             time.Date(2031, 3, 4, 5, 6, 7, 123456789, paris),
			EndAt:               time.Date(2032, 1, 1, 0, 0, 0, 1, time.UTC),
			MaxFires:            domain.MaxMaxFires,
			JitterSeconds:       domain.MaxJitterSeconds,
		}, `{"misfire":"catch_up","catch_up_limit":250,"catch_up_window_ns":129600000000001,"max_consecutive_skips":7,` +
			`"start_at":"2031-03-04T04:06:07.123456789Z","end_at":"2032-01-01T00:00:00.000000001Z","max_fires":1000000000,"jitter_seconds":3600}`},
		{"a notice", domain.Series{Notice: "alarm.failed"}, `{"notice":"alarm.failed"}`},
		{"an end alone", domain.Series{EndAt: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)}, `{"end_at":"2031-01-01T00:00:00Z"}`},
	} {
		text := EncodeSeries(c.s)
		if text != c.text {
			t.Errorf("%s: EncodeSeries = %s, want %s", c.name, text, c.text)
		}
		got, err := DecodeSeries(text)
		if err != nil {
			t.Fatalf("%s: DecodeSeries(%s): %v", c.name, text, err)
		}
		if !got.StartAt.Equal(c.s.StartAt) || !got.EndAt.Equal(c.s.EndAt) {
			t.Errorf("%s: times came back as %s, %s; want %s, %s", c.name, got.StartAt, got.EndAt, c.s.StartAt, c.s.EndAt)
		}
		for _, tm := range []time.Time{got.StartAt, got.EndAt} {
			if !tm.IsZero() && tm.Location() != time.UTC {
				t.Errorf("%s: a time came back in %s, want UTC", c.name, tm.Location())
			}
		}
		want := c.s
		want.StartAt, want.EndAt = got.StartAt, got.EndAt // compared above, as instants
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: DecodeSeries(EncodeSeries) = %+v, want %+v", c.name, got, want)
		}
	}
}

// Keys this binary does not know (a newer binary's options) are ignored; text that is
// not a series is an error.
func TestDecodeSeries(t *testing.T) {
	got, err := DecodeSeries(`{"misfire":"skip","max_fires":3,"some_later_option":{"x":1}}`)
	if err != nil || !reflect.DeepEqual(got, domain.Series{Misfire: domain.MisfireSkip, MaxFires: 3}) {
		t.Errorf("with an unknown key: %+v, %v; want misfire skip, max_fires 3", got, err)
	}
	for _, bad := range []string{`not json`, `{"max_fires":"three"}`, `{"end_at":"2031-01-01"}`, `[]`} {
		if _, err := DecodeSeries(bad); err == nil {
			t.Errorf("DecodeSeries(%s): no error", bad)
		}
	}
}

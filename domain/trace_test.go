package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const testTraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestParseTraceParent(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{testTraceParent, testTraceParent, true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true},
		// A later version: its first four fields, sent on as version 00.
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes", testTraceParent, true},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", testTraceParent, true},
		{"", "", false},
		{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "", false},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "", false},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "", false},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", "", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01", "", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", "", false},
	} {
		got, ok := ParseTraceParent(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseTraceParent(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestChildTraceParent(t *testing.T) {
	got := ChildTraceParent(testTraceParent, "b7ad6b7169203331")
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01"; got != want {
		t.Fatalf("child = %q, want %q", got, want)
	}
	if TraceID(got) != "4bf92f3577b34da6a3ce929d0e0e4736" || SpanID(got) != "b7ad6b7169203331" {
		t.Fatalf("TraceID/SpanID of %q = %q, %q", got, TraceID(got), SpanID(got))
	}
}

func TestNewAlarmTraceContext(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	delay := time.Minute
	spec := func(tp, ts string) Spec {
		return Spec{Owner: "o", Kind: KindOnce, Delay: &delay, TraceParent: tp, TraceState: ts}
	}
	a, err := NewAlarm("a1", spec("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "congo=t61rcWkgMzE"), now, Defaults{MaxFailures: 5})
	if err != nil {
		t.Fatal(err)
	}
	if a.TraceParent != testTraceParent || a.TraceState != "congo=t61rcWkgMzE" {
		t.Fatalf("alarm trace = %q, %q", a.TraceParent, a.TraceState)
	}
	if w := NewWake(a, now); w.TraceParent != a.TraceParent || w.TraceState != a.TraceState {
		t.Fatalf("wake trace = %q, %q", w.TraceParent, w.TraceState)
	}
	for _, c := range []struct{ tp, ts, field string }{
		{"00-nope", "", "traceparent"},
		{"", "congo=t61rcWkgMzE", "tracestate"},
		{testTraceParent, strings.Repeat("a", MaxTraceStateLen+1), "tracestate"},
		{testTraceParent, "congo=\x00", "tracestate"},
	} {
		_, err := NewAlarm("a1", spec(c.tp, c.ts), now, Defaults{MaxFailures: 5})
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("NewAlarm(traceparent %q, tracestate %q) = %v; want a refusal of %s", c.tp, c.ts, err, c.field)
		}
	}
}

package dispatch

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/domain"
)

// Without a tracer, a wake of an alarm without a trace context costs nothing: no
// allocation, no header, no span context in its ctx.
func TestTraceWakeWithoutTraceIsFree(t *testing.T) {
	d := &Dispatcher{}
	ctx := context.Background()
	w := domain.Wake{AlarmID: "a1", Attempt: 1}
	allocs := testing.AllocsPerRun(100, func() {
		c, span := d.traceWake(ctx, &w)
		endWake(span, nil)
		if c != ctx {
			t.Fatal("the context changed")
		}
	})
	if allocs != 0 || w.TraceParent != "" || w.TraceState != "" {
		t.Errorf("%v allocations, traceparent %q, tracestate %q; want none", allocs, w.TraceParent, w.TraceState)
	}
}

// Without a tracer, a wake of an alarm with a trace context sends a child of it, which
// its ctx carries too; a stored value that does not parse is sent as none.
func TestTraceWakeWithoutTracerSendsAChild(t *testing.T) {
	d := &Dispatcher{}
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	w := domain.Wake{AlarmID: "a1", TraceParent: parent, TraceState: "k=v"}
	ctx, span := d.traceWake(context.Background(), &w)
	if span != nil {
		t.Error("a span without a tracer")
	}
	if domain.TraceID(w.TraceParent) != domain.TraceID(parent) || domain.SpanID(w.TraceParent) == domain.SpanID(parent) ||
		w.TraceParent[53:] != "01" || w.TraceState != "k=v" {
		t.Errorf("wake trace %q, %q; want a child of %q and k=v", w.TraceParent, w.TraceState, parent)
	}
	if sc := trace.SpanContextFromContext(ctx); sc.SpanID().String() != domain.SpanID(w.TraceParent) || sc.TraceState().String() != "k=v" {
		t.Errorf("ctx span context %v, want the wake's %s", sc, w.TraceParent)
	}
	bad := domain.Wake{TraceParent: "00-short", TraceState: "k=v"}
	if _, span := d.traceWake(context.Background(), &bad); span != nil || bad.TraceParent != "" || bad.TraceState != "" {
		t.Errorf("a stored traceparent that does not parse was sent as %q, %q", bad.TraceParent, bad.TraceState)
	}
}

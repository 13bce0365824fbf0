package httpapi

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/domain"
)

// The trace context of a create (docs/tracing.md). A create request's traceparent and
// tracestate headers are the context its alarms are created in, unless an item names
// its own in the body. A malformed traceparent header is ignored, as the W3C asks of a
// receiver (the create goes on without one); a malformed tracestate is dropped alone.
// With a tracer, the create has a span of its own, a child of the header's context, and
// that span is what the alarms keep: their wakes then hang under it.

// requestTrace is the trace context of r's headers, version 00; "" when it has none or
// its traceparent does not parse. The keys are written canonical: Get of any other
// spelling allocates its canonical form on every request. A tracestate split over
// several header lines keeps its first.
func requestTrace(r *http.Request) (traceParent, traceState string) {
	tp, ok := domain.ParseTraceParent(r.Header.Get("Traceparent"))
	if !ok {
		return "", ""
	}
	if ts := r.Header.Get("Tracestate"); domain.ValidTraceState(ts) {
		traceState = ts
	}
	return tp, traceState
}

// createSpan is a create request's span; its zero value (no tracer) does nothing.
type createSpan struct {
	span trace.Span
	// traceParent and traceState are what an alarm without its own keeps: the span's
	// context, or without a tracer the request's headers.
	traceParent, traceState string
}

// startCreate begins r's create span, named for what it creates, a child of r's
// headers' context. ctx carries the span.
func (a *api) startCreate(r *http.Request) (context.Context, createSpan) {
	tp, ts := requestTrace(r)
	ctx := r.Context()
	if a.tracer == nil {
		return ctx, createSpan{traceParent: tp, traceState: ts}
	}
	if tp != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": ts})
	}
	ctx, span := a.tracer.Start(ctx, "create", trace.WithSpanKind(trace.SpanKindServer))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return ctx, createSpan{span: span, traceParent: carrier["traceparent"], traceState: carrier["tracestate"]}
}

// adopt gives spec the create's trace context unless it names its own.
func (c createSpan) adopt(spec *domain.Spec) {
	if spec.TraceParent == "" && spec.TraceState == "" {
		spec.TraceParent, spec.TraceState = c.traceParent, c.traceState
	}
}

// end closes the span: the alarm it created (a single create; "" for a batch), how
// many items it had, and its failure if it failed.
func (c createSpan) end(alarmID string, items int, err error) {
	if c.span == nil {
		return
	}
	if alarmID != "" {
		c.span.SetAttributes(attribute.String("chronos.alarm_id", alarmID))
	}
	if items > 0 {
		c.span.SetAttributes(attribute.Int("chronos.batch_size", items))
	}
	if err != nil {
		c.span.SetStatus(codes.Error, err.Error())
	}
	c.span.End()
}

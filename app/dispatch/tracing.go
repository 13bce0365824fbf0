package dispatch

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/app/internal/random"
	"github.com/chronoshq/chronos/domain"
)

// The dispatcher's spans (docs/tracing.md has the tree). A claim's span covers one
// claimed batch; the batch's applies are its children. A wake's span is a child of its
// alarm's stored trace context (the creator's), so an alarm's trace reads create → wake
// → the receiver's spans, with a link from each wake to the claim that took it. Alarm
// ids are span attributes, never metric labels.
//
// Without a tracer nothing here starts a span: an alarm with no trace context costs a
// failed length check, and one with a trace context gets a child traceparent of a
// random span id, also in its in-process handler's context.

// traceClaim records the span of a claim that took n alarms (or failed), begun at
// start, once its outcome is known, so idle claims of nothing leave no span. ctx,
// returned, carries it for the batch's applies and wakes.
func (d *Dispatcher) traceClaim(ctx context.Context, start time.Time, n int, err error) context.Context {
	if d.cfg.Tracer == nil || (n == 0 && err == nil) {
		return ctx
	}
	_, span := d.cfg.Tracer.Start(ctx, "claim", trace.WithTimestamp(start),
		trace.WithAttributes(attribute.Int("chronos.batch_size", n), attribute.String("chronos.worker", d.cfg.Worker)))
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return trace.ContextWithSpanContext(ctx, span.SpanContext())
}

// traceWake gives w this wake's own trace context, a child of the one its alarm keeps,
// and returns ctx carrying it with the span to end (nil without a tracer). ctx carries
// the claim's span context when there is one.
func (d *Dispatcher) traceWake(ctx context.Context, w *domain.Wake) (context.Context, trace.Span) {
	parent, ok := domain.ParseTraceParent(w.TraceParent)
	if !ok {
		w.TraceParent, w.TraceState = "", "" // none, or a stored value that no longer parses
	}
	if d.cfg.Tracer == nil {
		if !ok {
			return ctx, nil
		}
		w.TraceParent = domain.ChildTraceParent(parent, random.SpanID())
		return withTraceParent(ctx, w.TraceParent, w.TraceState), nil
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("chronos.alarm_id", w.AlarmID), attribute.Int("chronos.attempt", w.Attempt))}
	if claim := trace.SpanContextFromContext(ctx); claim.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: claim}))
	}
	if ok {
		ctx = withTraceParent(ctx, parent, w.TraceState)
	} else {
		opts = append(opts, trace.WithNewRoot()) // its own trace, not the claim's
	}
	ctx, span := d.cfg.Tracer.Start(ctx, "wake", opts...)
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	w.TraceParent, w.TraceState = carrier["traceparent"], carrier["tracestate"]
	return ctx, span
}

// endWake ends a wake's span (nil: none) with its outcome.
func endWake(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// traceApply begins the span of one Apply of n transitions, a child of the claim whose
// batch they belong to (carried by ctx); nil without a tracer.
func (d *Dispatcher) traceApply(ctx context.Context, n int) (context.Context, trace.Span) {
	if d.cfg.Tracer == nil {
		return ctx, nil
	}
	return d.cfg.Tracer.Start(ctx, "apply", trace.WithAttributes(attribute.Int("chronos.batch_size", n)))
}

// endApply ends an apply's span (nil: none): how many were stale, or its error.
func endApply(span trace.Span, stale int, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.Int("chronos.stale", stale))
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// withClaimSpan is a fresh context carrying claim's span context, if any: applies
// outlive the batch's contexts but still belong to its claim.
func withClaimSpan(claim trace.SpanContext) context.Context {
	if !claim.IsValid() {
		return context.Background()
	}
	return trace.ContextWithSpanContext(context.Background(), claim)
}

// withTraceParent is ctx with a valid traceparent and its tracestate as the remote span
// context: what an in-process handler reads with trace.SpanContextFromContext.
func withTraceParent(ctx context.Context, traceParent, traceState string) context.Context {
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": traceParent, "tracestate": traceState})
}

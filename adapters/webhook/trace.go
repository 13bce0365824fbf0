package webhook

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/domain"
)

// setTraceHeaders sends the wake's W3C trace context (docs/tracing.md): the dispatcher
// made w.TraceParent this wake's own span, a child of the creator's, so the receiver's
// trace continues the creator's. A wake without one sends neither header.
func setTraceHeaders(h http.Header, w domain.Wake) {
	if w.TraceParent == "" {
		return
	}
	h.Set("Traceparent", w.TraceParent)
	if w.TraceState != "" {
		h.Set("Tracestate", w.TraceState)
	}
}

// recordStatus puts the receiver's status on the wake's span, when one is recording.
func recordStatus(ctx context.Context, status int) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
	}
}

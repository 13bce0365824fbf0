// Package otlp exports chronos's spans to an OpenTelemetry collector over OTLP/HTTP
// (docs/tracing.md). It is the only package that imports the OpenTelemetry SDK: the
// rest of chronos records spans through the API's trace.Tracer, which is nil (off, no
// cost) unless an endpoint is configured.
//
// The SDK does the work that matters here and is easy to get wrong by hand: spans are
// queued and sent in batches off the hot path (a full queue drops spans, it never
// blocks a wake), retried with backoff, encoded as OTLP protobuf, and flushed on stop.
package otlp

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the service.name of every span chronos exports.
const ServiceName = "chronos"

// Exporter sends a node's spans to one OTLP/HTTP endpoint.
type Exporter struct {
	provider *sdktrace.TracerProvider
}

// New builds an exporter to endpoint, an http:// or https:// URL: a collector's base
// URL ("http://collector:4318") gets OTLP's /v1/traces path; a URL with a path is used
// as it is. version and instance become service.version and service.instance.id. New
// does no I/O: the first batch is sent when spans are recorded. The SDK's OTEL_*
// environment variables (OTEL_EXPORTER_OTLP_HEADERS for a collector's credentials,
// OTEL_TRACES_SAMPLER) apply as usual.
func New(endpoint, version, instance string) (*Exporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp: endpoint %q must be an http:// or https:// URL such as http://collector:4318", endpoint)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1/traces"
	}
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u.String()))
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", ServiceName),
		attribute.String("service.version", version),
		attribute.String("service.instance.id", instance),
	)
	return &Exporter{provider: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))}, nil
}

// Tracer is what records chronos's spans.
func (e *Exporter) Tracer() trace.Tracer {
	return e.provider.Tracer("github.com/chronoshq/chronos")
}

// Shutdown sends the spans still queued, within ctx, and stops the exporter.
func (e *Exporter) Shutdown(ctx context.Context) error {
	return e.provider.Shutdown(ctx)
}

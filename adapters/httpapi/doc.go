// Package httpapi is chronos's REST API: the driving adapter that turns HTTP requests
// into calls on the owner-facing use cases, scoped by the owner of the bearer token.
//
//	POST   /v1/alarms                          201 {alarm, deduped:false} | 200 {alarm, deduped:true}
//	GET    /v1/alarms?status=&limit=&cursor=   200 {alarms, next_cursor}
//	GET    /v1/alarms/{id}                     200 {alarm}
//	DELETE /v1/alarms/{id}                     200 {alarm}   cancel; idempotent
//	POST   /v1/alarms/{id}/pause|resume|trigger 200 {alarm}
//	GET    /v1/alarms/{id}/events?limit=       200 {events}
//	GET    /v1/alarms/{id}/attempts?limit=&cursor= 200 {attempts, next_cursor}   newest first
//	GET    /healthz  /readyz  /openapi.json    no token (openapi.yaml, embedded, is the full contract)
//
// Every error is {"error": {"code", "message", "field"}}, field naming the offending
// input when there is one; errors.go holds the one table from errors to statuses.
//
// Choices a client can rely on:
//   - The request body is strict: unknown fields (matched exactly, not case-insensitively
//     as encoding/json would), wrong JSON types, trailing data and non-object bodies are
//     invalid_request, naming the field when there is one.
//   - delay_seconds takes integer or fractional seconds (>= 0). A JSON null for an
//     optional field means the same as leaving it out; max_failures given as 0 is refused,
//     not read as "the server default".
//   - limit must be an integer from 1 to 500 for /v1/alarms (default 100) and from 1 to
//     1000 for events (default 1000), from 1 to 100 for attempts (default 20); anything else is a 400 naming "limit", never
//     silently clamped. next_cursor is "" on the last page, and only there: a filtered
//     list's page may hold fewer than limit alarms, even none, and carry one.
//   - The alarm's payload is written back byte for byte as it was posted, whitespace
//     included (encoding/json would compact it, so the alarm view is written by hand).
//   - Times are RFC 3339 in UTC with nanoseconds, null when unset; next_fire_at is null
//     unless the alarm is active. The owner and the lease are never exposed.
package httpapi

// Package webhook delivers wakes over HTTP: the driven adapter behind ports.Waker.
//
// The wire contract, which receivers code against:
//
//	POST <wake url>
//	Content-Type: application/json
//	User-Agent: chronos/<version>
//	Idempotency-Key: <occurrence key>
//	Chronos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
//
// The body is one JSON object whose fields always appear, in this order: alarm_id,
// owner, label, kind, scheduled_for, fired_at, attempt, occurrence_key,
// conversation_id, wake_message, payload, delivery. Times are RFC 3339 in UTC, with
// fractional seconds only when non-zero. payload is the alarm's JSON exactly as it was
// stored, byte for byte (null when the alarm has none).
//
// Any 2xx answer within the delivery timeout acknowledges the wake. Everything else
// (another status, a redirect, a timeout, a connection error) is a failed attempt and
// the error says which. Retries are the dispatcher's business, never this package's.
//
// Receivers check the signature with Verify; the dev server prints wakes with Printer,
// which writes the same JSON as Body.
package webhook

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
// (another status, a redirect, a timeout, a connection error, an untrusted TLS
// certificate) is a failed attempt and the error says which, in words: it becomes the
// alarm's last_error. Retries are the dispatcher's business, never this package's.
//
// The status line is the answer. Once it has arrived, the body is read for at most a
// second and 64 KiB (to quote the first 512 bytes of a refusal and to reuse the
// connection), then the connection is dropped: a 2xx whose body drips, runs to 50 MB or
// is cut by a reset still acknowledges the wake, and a refusal's error says why its
// body was cut short. Redirects are never followed: the signed wake goes only to the
// configured URL. Response headers over 64 KiB fail the attempt.
//
// A waker given an egress policy (Options.Egress: the owners' endpoints) checks every
// address it connects to, after DNS, and refuses those the policy does not allow; the
// attempt then fails with the policy's *domain.EgressError and nothing is sent.
//
// Receivers check the signature with Verify; the dev server prints wakes with Printer,
// which writes the same JSON as Body.
package webhook

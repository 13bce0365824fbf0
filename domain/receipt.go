package domain

import "time"

// Receipt is what one delivery attempt came to at the receiver, kept with the event
// that records the attempt (Event.Receipt): the attempt log. A wake that was never
// sent (deferred, skipped by a misfire policy) has none.
type Receipt struct {
	// Duration is how long the wake took, from sending to the answer or the failure.
	Duration time.Duration
	// Status is the receiver's HTTP status; 0 when there was no HTTP answer (a
	// transport error, a timeout, an in-process handler).
	Status int
	// ContentType is the answer's Content-Type; "" when none.
	ContentType string
	// Body is the first bytes of the answer's body, at most the node's attempt body
	// limit; nil when none was kept.
	Body []byte
	// Truncated: the body went on past Body.
	Truncated bool
}

// DefaultReceiptBody is how many bytes of an answer's body an attempt keeps unless the
// node is told otherwise, and MaxReceiptBody the most it may be told: a batch of a
// thousand attempts' events then stays within a database's default packet size.
const (
	DefaultReceiptBody = 1024
	MaxReceiptBody     = 8192
)

// maxContentType bounds a kept Content-Type: a real one is a few dozen bytes.
const maxContentType = 200

// Kept is r as an attempt keeps it: the content type made printable text (a header may
// carry any bytes; every store keeps it as text) of at most 200 bytes, and the body cut
// to at most limit bytes (none for limit <= 0), marked Truncated when anything was cut.
func (r Receipt) Kept(limit int) Receipt {
	if r.ContentType != "" {
		r.ContentType = PrintableText(r.ContentType, maxContentType)
	}
	limit = max(limit, 0)
	if len(r.Body) > limit {
		r.Body, r.Truncated = r.Body[:limit:limit], true
	}
	if len(r.Body) == 0 {
		r.Body = nil
	}
	return r
}

// IsAttempt reports whether e records a delivery attempt (it carries its Receipt).
func (e Event) IsAttempt() bool { return e.Receipt != nil }

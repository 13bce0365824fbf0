package webhook

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
)

// bodyOverhead covers the field names, punctuation, the two timestamps and the attempt
// number, so that a wake whose strings need no escaping is built in one allocation.
const bodyOverhead = 256

// Body returns the JSON body of the wake w: the bytes that are sent, signed and, in
// development, printed. See the package documentation for the fields.
func Body(w domain.Wake) []byte {
	n := bodyOverhead + len(w.AlarmID) + len(w.Owner) + len(w.Label) + len(w.Kind) +
		len(w.OccurrenceKey) + len(w.ConversationID) + len(w.WakeMessage) +
		len(w.Payload) + len(w.Delivery)
	return AppendBody(make([]byte, 0, n), w)
}

// AppendBody appends the JSON body of w to dst and returns the extended slice. It
// allocates only when dst is too small, so a caller can reuse one buffer.
//
// The envelope is written by hand rather than with encoding/json because Marshal
// compacts a json.RawMessage: the payload must reach the receiver exactly as stored,
// whitespace and key order included. Hand-writing also keeps this hot path free of
// reflection.
func AppendBody(dst []byte, w domain.Wake) []byte {
	dst = appendString(append(dst, `{"alarm_id":`...), w.AlarmID)
	dst = appendString(append(dst, `,"owner":`...), w.Owner)
	dst = appendString(append(dst, `,"label":`...), w.Label)
	dst = appendString(append(dst, `,"kind":`...), string(w.Kind))
	dst = appendTime(append(dst, `,"scheduled_for":`...), w.ScheduledFor)
	dst = appendTime(append(dst, `,"fired_at":`...), w.FiredAt)
	dst = strconv.AppendInt(append(dst, `,"attempt":`...), int64(w.Attempt), 10)
	dst = appendString(append(dst, `,"occurrence_key":`...), w.OccurrenceKey)
	dst = appendString(append(dst, `,"conversation_id":`...), w.ConversationID)
	dst = appendString(append(dst, `,"wake_message":`...), w.WakeMessage)
	dst = append(dst, `,"payload":`...)
	if len(w.Payload) == 0 {
		// The domain stores "null" for an alarm created without a payload; an empty
		// value here would make the body invalid JSON, so say the same thing.
		dst = append(dst, "null"...)
	} else {
		// Validated as JSON when the alarm was created; embedded untouched.
		dst = append(dst, w.Payload...)
	}
	dst = appendString(append(dst, `,"delivery":`...), string(w.Delivery))
	return append(dst, '}')
}

// appendTime appends t as a quoted RFC 3339 UTC timestamp. RFC3339Nano drops trailing
// zeros of the fraction, so whole seconds carry no fraction at all.
func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped exactly as encoding/json does with
// HTML escaping turned off (a webhook body is never embedded in HTML): control
// characters, quote and backslash are escaped, invalid UTF-8 becomes U+FFFD, and
// U+2028/U+2029 are escaped so the body is also valid JavaScript.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is pending, needing no escape
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

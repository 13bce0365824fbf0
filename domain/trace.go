package domain

import "strings"

// Trace context (W3C Trace Context, https://www.w3.org/TR/trace-context/): a create may
// carry its caller's traceparent and tracestate; the alarm keeps them, and every wake of
// it carries a child of that context (same trace id, a span id of its own), so the
// receiver's trace continues the creator's. The domain only checks and composes the
// strings; the span ids a wake sends are made by the dispatcher (randomness is not the
// domain's).

// MaxTraceStateLen is the longest tracestate kept, in bytes: the 512 the W3C asks every
// vendor to propagate at least.
const MaxTraceStateLen = 512

// TraceParentLen is the length of a version-00 traceparent,
// "00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>".
const TraceParentLen = 55

// ParseTraceParent checks a traceparent as the W3C says a receiver must, and returns it
// as version 00 (the only version a sender may write): lower-case hex fields, neither id
// all zeros, version ff refused, a later version's extra fields dropped. ok is false for
// anything else; the caller then behaves as if no traceparent was given.
func ParseTraceParent(s string) (tp string, ok bool) {
	if len(s) < TraceParentLen || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return "", false
	}
	version := s[0:2]
	if !lowerHex(version) || version == "ff" || (version == "00" && len(s) != TraceParentLen) {
		return "", false
	}
	if len(s) > TraceParentLen && s[TraceParentLen] != '-' {
		return "", false // a later version may add fields, each after a dash
	}
	traceID, parentID, flags := s[3:35], s[36:52], s[53:55]
	if !lowerHex(traceID) || !lowerHex(parentID) || !lowerHex(flags) || allZero(traceID) || allZero(parentID) {
		return "", false
	}
	if version == "00" {
		return s, true
	}
	return "00-" + traceID + "-" + parentID + "-" + flags, true
}

// ValidTraceState reports whether s can be kept and sent again as a tracestate header:
// at most MaxTraceStateLen bytes of printable ASCII (the W3C's list-members use no
// more). Its members are not parsed: it is the tracing vendors' to read.
func ValidTraceState(s string) bool {
	if len(s) > MaxTraceStateLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// ChildTraceParent is the traceparent of a span that is a child of parent (a valid
// version-00 traceparent): parent's trace id and flags, spanID (16 lower-case hex
// digits, not all zero) its own.
func ChildTraceParent(parent, spanID string) string {
	return parent[:36] + spanID + parent[52:]
}

// TraceID is the 32 hex digits of a valid traceparent's trace id.
func TraceID(traceParent string) string { return traceParent[3:35] }

// SpanID is the 16 hex digits of a valid traceparent's parent (span) id.
func SpanID(traceParent string) string { return traceParent[36:52] }

// traceContext checks a Spec's trace context and returns its traceparent as version 00.
// A create's headers were checked already (a malformed header is ignored, as the W3C
// asks); what fails here is a field the client wrote in the body.
func traceContext(traceParent, traceState string) (string, error) {
	if traceParent != "" {
		tp, ok := ParseTraceParent(traceParent)
		if !ok {
			return "", invalid("traceparent", `must be a W3C traceparent such as "00-<32 hex digits>-<16 hex digits>-<2 hex digits>", lower case, neither id all zeros`)
		}
		traceParent = tp
	}
	if traceState != "" {
		if traceParent == "" {
			return "", invalid("tracestate", "is given without traceparent")
		}
		if !ValidTraceState(traceState) {
			return "", invalid("tracestate", "must be at most %d characters of printable ASCII", MaxTraceStateLen)
		}
	}
	return traceParent, nil
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

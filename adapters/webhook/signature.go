package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries the signature Sign computes and Verify checks.
const SignatureHeader = "Chronos-Signature"

// DefaultTolerance is how far a signature's timestamp may be from the receiver's clock
// when Verify is given no tolerance. It bounds how long a captured request can be
// replayed while leaving room for clock skew and a slow delivery.
const DefaultTolerance = 5 * time.Minute

// Errors Verify returns, wrapped with detail; test with errors.Is.
var (
	ErrNoSecret          = errors.New("webhook: no secret to verify with")
	ErrMalformedHeader   = errors.New("webhook: malformed " + SignatureHeader + " header")
	ErrSignatureMismatch = errors.New("webhook: signature does not match the body")
	ErrSignatureExpired  = errors.New("webhook: signature timestamp outside the tolerance")
)

// Sign returns the Chronos-Signature header value for body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by secret>".
// The timestamp is inside the MAC so a receiver can refuse replays of old requests.
func Sign(secret []byte, t time.Time, body []byte) string {
	return SignAll([][]byte{secret}, t, body)
}

// SignAll is Sign with several secrets: one v1 per secret, in order, after one t. A
// receiver holding any one of them verifies the wake, so a secret can be rotated
// without a wake that no receiver accepts (README, "Rotating a
// secret"). Stripe's libraries read the same form.
func SignAll(secrets [][]byte, t time.Time, body []byte) string {
	var buf [20]byte
	ts := strconv.AppendInt(buf[:0], t.Unix(), 10)
	out := make([]byte, 0, len("t=")+len(ts)+len(secrets)*(len(",v1=")+hex.EncodedLen(sha256.Size)))
	out = append(out, "t="...)
	out = append(out, ts...)
	for _, secret := range secrets {
		sum := mac(secret, ts, body)
		out = append(out, ",v1="...)
		out = hex.AppendEncode(out, sum[:])
	}
	return string(out)
}

// Verify checks that header (the Chronos-Signature value) was made by Sign with secret
// over exactly body, the raw request body as received, and that its timestamp is within
// tolerance of now (DefaultTolerance when tolerance <= 0). It returns nil when the
// request is authentic and fresh; otherwise an error wrapping ErrNoSecret,
// ErrMalformedHeader, ErrSignatureMismatch or ErrSignatureExpired.
//
// Unknown keys in the header are ignored and several v1 values are accepted (any one
// matching suffices), so a sender can later add schemes or sign with both an old and a
// new secret during a rotation without breaking receivers.
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if len(secret) == 0 {
		// An HMAC keyed by nothing is one anybody can compute.
		return ErrNoSecret
	}
	ts, sigs, err := parseSignature(header)
	if err != nil {
		return err
	}
	want := mac(secret, []byte(ts), body)
	matched := false
	for _, sig := range sigs {
		// hmac.Equal compares in constant time: timing must not reveal how much matched.
		if hmac.Equal(sig, want[:]) {
			matched = true
		}
	}
	if !matched {
		return ErrSignatureMismatch
	}
	// Checked after the MAC so that "expired" is only ever said of an authentic request.
	unix, _ := strconv.ParseInt(ts, 10, 64) // parseSignature validated it
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	signedAt := time.Unix(unix, 0)
	if age := now.Sub(signedAt); age > tolerance {
		return fmt.Errorf("%w: signed at %s, %s ago (tolerance %s)",
			ErrSignatureExpired, signedAt.UTC().Format(time.RFC3339), age.Round(time.Second), tolerance)
	} else if age < -tolerance {
		return fmt.Errorf("%w: signed at %s, %s in the future (tolerance %s; check the clocks)",
			ErrSignatureExpired, signedAt.UTC().Format(time.RFC3339), (-age).Round(time.Second), tolerance)
	}
	return nil
}

// parseSignature splits "t=<unix>,v1=<hex>[,v1=<hex>...]" into the timestamp as sent
// (the MAC covers its exact digits) and the decoded v1 signatures.
func parseSignature(header string) (ts string, sigs [][]byte, err error) {
	if strings.TrimSpace(header) == "" {
		return "", nil, fmt.Errorf("%w: header is empty or missing", ErrMalformedHeader)
	}
	for part := range strings.SplitSeq(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return "", nil, fmt.Errorf("%w: %q is not key=value", ErrMalformedHeader, part)
		}
		switch key {
		case "t":
			if ts != "" {
				return "", nil, fmt.Errorf("%w: more than one t", ErrMalformedHeader)
			}
			if _, err := strconv.ParseUint(value, 10, 63); err != nil {
				return "", nil, fmt.Errorf("%w: t=%q is not a unix time in seconds", ErrMalformedHeader, value)
			}
			ts = value
		case "v1":
			sig, err := hex.DecodeString(value)
			if err != nil || len(sig) != sha256.Size {
				return "", nil, fmt.Errorf("%w: v1 is not %d hex digits", ErrMalformedHeader, hex.EncodedLen(sha256.Size))
			}
			sigs = append(sigs, sig)
		}
	}
	if ts == "" {
		return "", nil, fmt.Errorf("%w: no t= timestamp", ErrMalformedHeader)
	}
	if len(sigs) == 0 {
		return "", nil, fmt.Errorf("%w: no v1= signature", ErrMalformedHeader)
	}
	return ts, sigs, nil
}

// mac is HMAC-SHA256 of "<ts>.<body>" keyed by secret, fed in pieces so the signed
// string is never built in memory.
func mac(secret, ts, body []byte) [sha256.Size]byte {
	h := hmac.New(sha256.New, secret)
	h.Write(ts)
	h.Write([]byte{'.'})
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

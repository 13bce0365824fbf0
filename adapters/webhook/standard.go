package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks (https://www.standardwebhooks.com/, spec/standard-webhooks.md):
// every wake also carries these three headers, which the spec's libraries (ten
// languages) verify, besides chronos's own Chronos-Signature.
const (
	// StandardIDHeader is the message id: the wake's occurrence key, the same on every
	// retry of one occurrence, as the spec asks of an id receivers deduplicate on.
	StandardIDHeader = "webhook-id"
	// StandardTimestampHeader is the send time in unix seconds.
	StandardTimestampHeader = "webhook-timestamp"
	// StandardSignatureHeader is "v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">",
	// one per secret, separated by spaces.
	StandardSignatureHeader = "webhook-signature"
)

// StandardSecretPrefix marks a secret given in the spec's form, "whsec_<base64>".
const StandardSecretPrefix = "whsec_"

// ErrBadStandardSecret is a "whsec_" secret whose rest is not base64.
var ErrBadStandardSecret = errors.New(`webhook: a secret starting "whsec_" must continue in base64`)

// StandardKey is the HMAC key a secret gives webhook-signature: for "whsec_<base64>",
// the decoded bytes, as the spec says; for any other secret, its own bytes (a receiver
// using a Standard Webhooks library then gives it the secret as base64). The
// Chronos-Signature always uses the secret exactly as written.
func StandardKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, StandardSecretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) == 0 {
		return nil, ErrBadStandardSecret
	}
	return key, nil
}

// SignStandard returns the webhook-signature value for a message id sent at t: one
// "v1,<base64>" per key, space-separated.
func SignStandard(keys [][]byte, id string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	for i, key := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("v1,")
		sum := standardMAC(key, id, ts, body)
		b.WriteString(base64.StdEncoding.EncodeToString(sum[:]))
	}
	return b.String()
}

// VerifyStandard checks the Standard Webhooks headers of a request with key (as
// StandardKey gives it): any v1 signature matching suffices, and the timestamp must be
// within tolerance of now (DefaultTolerance when tolerance <= 0). Errors wrap the same
// sentinels Verify uses.
func VerifyStandard(key []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if len(key) == 0 {
		return ErrNoSecret
	}
	id, ts, sigs := h.Get(StandardIDHeader), h.Get(StandardTimestampHeader), h.Get(StandardSignatureHeader)
	if id == "" || ts == "" || sigs == "" {
		return fmt.Errorf("%w: a webhook-id, webhook-timestamp or webhook-signature header is missing", ErrMalformedHeader)
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q is not unix seconds", ErrMalformedHeader, ts)
	}
	want := standardMAC(key, id, ts, body)
	matched := false
	for sig := range strings.FieldsSeq(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue // another scheme, e.g. v1a: not ours to check
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want[:]) {
			matched = true
		}
	}
	if !matched {
		return ErrSignatureMismatch
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if age := now.Sub(time.Unix(unix, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w: webhook-timestamp %d is %s from now (tolerance %s)", ErrSignatureExpired, unix, age.Round(time.Second), tolerance)
	}
	return nil
}

// standardMAC is HMAC-SHA256 of "<id>.<ts>.<body>" keyed by key.
func standardMAC(key []byte, id, ts string, body []byte) [sha256.Size]byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Package random makes the random strings of app's rooms (worker ids, tokens, span ids).
package random

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
)

// String returns n random bytes, base64url encoded without padding.
func String(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("random: crypto/rand failed: " + err.Error()) // cannot happen on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// SpanID returns a W3C span id: 8 random bytes, not all zero, as 16 lower-case hex
// digits. Not secret, so the fast generator does.
func SpanID() string {
	var b [8]byte
	for {
		if v := mrand.Uint64(); v != 0 {
			binary.BigEndian.PutUint64(b[:], v)
			return hex.EncodeToString(b[:])
		}
	}
}

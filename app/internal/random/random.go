// Package random makes the random strings of app's rooms (worker ids, tokens).
package random

import (
	"crypto/rand"
	"encoding/base64"
)

// String returns n random bytes, base64url encoded without padding.
func String(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("random: crypto/rand failed: " + err.Error()) // cannot happen on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

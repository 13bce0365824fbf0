package app

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/google/uuid"
)

// NewAlarmID returns a UUIDv7: time-ordered, so ids sort by creation time and the
// owner listing can page by id alone.
func NewAlarmID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// RandomString returns n random bytes, base64url encoded without padding.
func RandomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("app: crypto/rand failed: " + err.Error()) // cannot happen on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

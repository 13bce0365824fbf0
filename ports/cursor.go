package ports

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
)

// EncodeListCursor makes the cursor AlarmStore.List returns after a page whose last
// alarm is lastID. Every store pages by id (time-ordered UUIDv7), so every store uses
// this one format: the id, base64url-encoded so clients treat it as opaque.
func EncodeListCursor(lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lastID))
}

// DecodeListCursor returns the id a cursor continues after, or the *domain.ValidationError
// on "cursor" that List must return for a cursor it did not issue.
func DecodeListCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || !utf8.Valid(b) {
		return "", &domain.ValidationError{Field: "cursor", Message: "is not a cursor returned by a previous list call"}
	}
	return string(b), nil
}

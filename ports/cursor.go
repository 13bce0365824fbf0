package ports

import (
	"encoding/base64"
	"math"
	"strconv"
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

// EncodeAttemptCursor makes the cursor AlarmReader.Attempts returns after a page whose
// last (oldest) attempt is the event lastID: the id, base64url-encoded like a list's.
func EncodeAttemptCursor(lastID int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(lastID, 10)))
}

// DecodeAttemptCursor returns the event id an attempts cursor continues before, or the
// *domain.ValidationError on "cursor" that Attempts must return for one it did not issue.
func DecodeAttemptCursor(c string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	id, perr := strconv.ParseInt(string(b), 10, 64)
	if err != nil || perr != nil || id <= 0 {
		return 0, &domain.ValidationError{Field: "cursor", Message: "is not a cursor returned by a previous attempts call"}
	}
	return id, nil
}

// After is the id f's page continues after: "" for the first page (no Cursor), else
// the id DecodeListCursor reads from f.Cursor, or its error.
func (f ListFilter) After() (string, error) {
	if f.Cursor == "" {
		return "", nil
	}
	return DecodeListCursor(f.Cursor)
}

// Before is the event id q's page continues before: math.MaxInt64 for the newest
// attempts (no Cursor), else the id DecodeAttemptCursor reads from q.Cursor, or its
// error.
func (q AttemptsQuery) Before() (int64, error) {
	if q.Cursor == "" {
		return math.MaxInt64, nil
	}
	return DecodeAttemptCursor(q.Cursor)
}

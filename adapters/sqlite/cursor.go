package sqlite

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
)

// A list cursor is the id of the last alarm of the previous page, base64url-encoded so
// clients treat it as opaque and do not build their own.

func encodeCursor(lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lastID))
}

func decodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || !utf8.Valid(b) {
		return "", &domain.ValidationError{Field: "cursor", Message: "is not a cursor returned by a previous list call"}
	}
	return string(b), nil
}

package ports

import (
	"errors"
	"math"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// A page without a cursor starts at the newest; a cursor a store issued continues where
// its page ended; anything else is refused on "cursor".
func TestPageCursors(t *testing.T) {
	for _, tc := range []struct {
		cursor string
		after  string
		ok     bool
	}{
		{"", "", true},
		{EncodeListCursor("0190-abc"), "0190-abc", true},
		{"not base64!", "", false},
		{EncodeListCursor("\xff"), "", false},
	} {
		after, err := ListFilter{Cursor: tc.cursor}.After()
		if after != tc.after || (err == nil) != tc.ok || (err != nil && !isCursorError(err)) {
			t.Errorf("ListFilter{Cursor: %q}.After() = %q, %v; want %q, ok %t", tc.cursor, after, err, tc.after, tc.ok)
		}
	}
	for _, tc := range []struct {
		cursor string
		before int64
		ok     bool
	}{
		{"", math.MaxInt64, true},
		{EncodeAttemptCursor(42), 42, true},
		{EncodeAttemptCursor(0), 0, false},
		{EncodeListCursor("-3"), 0, false},
		{EncodeListCursor("x"), 0, false},
		{"%%", 0, false},
	} {
		before, err := AttemptsQuery{Cursor: tc.cursor}.Before()
		if before != tc.before || (err == nil) != tc.ok || (err != nil && !isCursorError(err)) {
			t.Errorf("AttemptsQuery{Cursor: %q}.Before() = %d, %v; want %d, ok %t", tc.cursor, before, err, tc.before, tc.ok)
		}
	}
}

func isCursorError(err error) bool {
	var ve *domain.ValidationError
	return errors.As(err, &ve) && ve.Field == "cursor"
}

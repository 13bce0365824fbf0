package ctxerr

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestIs(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{context.Canceled, true},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("driver: read: %w", context.DeadlineExceeded), true},
		{errors.New("context canceled"), false}, // the text alone is not the error
		{nil, false},
	} {
		if got := Is(c.err); got != c.want {
			t.Errorf("Is(%v) = %t, want %t", c.err, got, c.want)
		}
	}
}

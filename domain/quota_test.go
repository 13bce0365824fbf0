package domain

import (
	"errors"
	"slices"
	"testing"
)

func TestCheckQuota(t *testing.T) {
	for _, c := range []struct {
		limit, active, adding int
		refused               bool
	}{
		{0, 5_000_000, 1000, false}, // no quota
		{-1, 10, 10, false},
		{10, 0, 10, false},
		{10, 9, 1, false},
		{10, 10, 1, true},
		{10, 9, 2, true},  // a batch crossing it: refused whole
		{10, 12, 1, true}, // already over (another node's creates)
		{10, 0, 11, true}, // one request larger than the quota
	} {
		err := CheckQuota(c.limit, c.active, c.adding)
		var le *LimitError
		switch {
		case !c.refused && err != nil:
			t.Errorf("CheckQuota(%d, %d, %d) = %v, want allowed", c.limit, c.active, c.adding, err)
		case c.refused && (!errors.Is(err, ErrQuotaExceeded) || !errors.As(err, &le) || le.Message == ""):
			t.Errorf("CheckQuota(%d, %d, %d) = %v, want a LimitError of ErrQuotaExceeded with a message", c.limit, c.active, c.adding, err)
		}
	}
}

// The statuses the stores count and the one the memory store tests agree.
func TestQuotaStatuses(t *testing.T) {
	for _, st := range Statuses {
		if st.CountsTowardQuota() != slices.Contains(QuotaStatuses, st) {
			t.Errorf("%s: CountsTowardQuota %t, in QuotaStatuses %t", st, st.CountsTowardQuota(), slices.Contains(QuotaStatuses, st))
		}
	}
	if !StatusPaused.CountsTowardQuota() || StatusFired.CountsTowardQuota() {
		t.Error("a paused series must count and a fired alarm must not")
	}
}

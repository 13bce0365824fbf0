package domain

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCheckQuota(t *testing.T) {
	for _, c := range []struct {
		limit, active, adding int
		refused, permanent    bool
	}{
		{0, 5_000_000, 1000, false, false}, // no quota
		{-1, 10, 10, false, false},
		{10, 0, 10, false, false},
		{10, 9, 1, false, false},
		{10, 10, 1, true, false},
		{10, 9, 2, true, false},  // a batch crossing it: refused whole
		{10, 12, 1, true, false}, // already over (another node's creates)
		{10, 0, 11, true, true},  // one request larger than the whole quota: never fits
		{10, 10, 11, true, true},
	} {
		err := CheckQuota(c.limit, c.active, c.adding)
		var le *LimitError
		switch {
		case !c.refused && err != nil:
			t.Errorf("CheckQuota(%d, %d, %d) = %v, want allowed", c.limit, c.active, c.adding, err)
		case c.refused && (!errors.Is(err, ErrQuotaExceeded) || !errors.As(err, &le) || le.Message == ""):
			t.Errorf("CheckQuota(%d, %d, %d) = %v, want a LimitError of ErrQuotaExceeded with a message", c.limit, c.active, c.adding, err)
		case c.refused && le.Permanent != c.permanent:
			t.Errorf("CheckQuota(%d, %d, %d): Permanent %t, want %t (%q)", c.limit, c.active, c.adding, le.Permanent, c.permanent, le.Message)
		case c.permanent && !strings.Contains(le.Message, "alone exceeds the quota"):
			t.Errorf("CheckQuota(%d, %d, %d): %q does not say the request alone exceeds the quota", c.limit, c.active, c.adding, le.Message)
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

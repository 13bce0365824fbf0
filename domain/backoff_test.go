package domain

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// The ladder of DESIGN: 30s doubling per earlier failure, capped at 15m.
func TestDefaultBackoffLadder(t *testing.T) {
	for _, tc := range []struct {
		failures int
		want     time.Duration
	}{
		{-1, 30 * time.Second}, // defensive: treated as no earlier failure
		{0, 30 * time.Second},
		{1, time.Minute},
		{2, 2 * time.Minute},
		{3, 4 * time.Minute},
		{4, 8 * time.Minute},
		{5, 15 * time.Minute}, // 16m, capped
		{6, 15 * time.Minute},
		{50, 15 * time.Minute},
		{1000, 15 * time.Minute},
		{math.MaxInt, 15 * time.Minute},
	} {
		if got := DefaultBackoff.Delay(tc.failures); got != tc.want {
			t.Errorf("DefaultBackoff.Delay(%d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}

func TestBackoffCustomBaseAndCap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		b        Backoff
		failures int
		want     time.Duration
	}{
		{"base", Backoff{Base: time.Second, Cap: 10 * time.Second}, 0, time.Second},
		{"doubled", Backoff{Base: time.Second, Cap: 10 * time.Second}, 3, 8 * time.Second},
		{"capped", Backoff{Base: time.Second, Cap: 10 * time.Second}, 4, 10 * time.Second},
		{"cap not a power of two of base", Backoff{Base: 3 * time.Second, Cap: 20 * time.Second}, 2, 12 * time.Second},
		{"cap not a power of two of base, capped", Backoff{Base: 3 * time.Second, Cap: 20 * time.Second}, 3, 20 * time.Second},
		{"base above cap is capped", Backoff{Base: time.Hour, Cap: time.Minute}, 0, time.Minute},
		{"zero value is the default ladder", Backoff{}, 2, 2 * time.Minute},
		{"zero base defaults to 30s", Backoff{Cap: time.Hour}, 0, 30 * time.Second},
		{"zero cap defaults to 15m", Backoff{Base: time.Minute}, 10, 15 * time.Minute},
		{"negative values default", Backoff{Base: -time.Second, Cap: -time.Second}, 1, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Delay(tc.failures); got != tc.want {
				t.Errorf("%+v.Delay(%d) = %s, want %s", tc.b, tc.failures, got, tc.want)
			}
		})
	}
}

// However many failures and however large the cap, the delay never wraps around to a
// negative or zero wait (which would retry in a hot loop) and never exceeds the cap.
func TestBackoffNeverOverflows(t *testing.T) {
	for _, b := range []Backoff{
		DefaultBackoff,
		{Base: time.Nanosecond, Cap: math.MaxInt64},
		{Base: time.Second, Cap: math.MaxInt64},
		{Base: 3 * time.Nanosecond, Cap: math.MaxInt64 - 1},
		{Base: time.Duration(1) << 62, Cap: math.MaxInt64},
		{Base: math.MaxInt64, Cap: math.MaxInt64},
	} {
		t.Run(fmt.Sprintf("%d/%d", b.Base, b.Cap), func(t *testing.T) {
			prev := time.Duration(0)
			for _, n := range []int{0, 1, 30, 61, 62, 63, 64, 65, 100, 1000, math.MaxInt} {
				got := b.Delay(n)
				if got <= 0 || got > b.Cap || got < prev {
					t.Fatalf("Delay(%d) = %d after %d; want a positive, non-decreasing delay at most the cap %d",
						n, got, prev, b.Cap)
				}
				prev = got
			}
			if got := b.Delay(1000); got != b.Cap {
				t.Errorf("Delay(1000) = %d, want the cap %d", got, b.Cap)
			}
		})
	}
}

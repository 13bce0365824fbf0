package app

import (
	"testing"
	"time"
)

func TestHintsKeepTheEarliestAndNeverBlock(t *testing.T) {
	h := NewHints()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 10; i > 0; i-- { // many producers, nobody reading: must not block
		h.Hint(t0.Add(time.Duration(i) * time.Second))
	}
	h.Hint(t0.Add(30 * time.Second))
	select {
	case <-h.C():
	default:
		t.Fatal("no signal after Hint")
	}
	if got := h.Take(); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("Take = %s, want the earliest hint %s", got, t0.Add(time.Second))
	}
	if got := h.Take(); !got.IsZero() {
		t.Errorf("second Take = %s, want zero (cleared)", got)
	}
}

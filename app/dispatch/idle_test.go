package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
)

// A hint for an instant after the current wait does not shorten it, but it is kept as the
// earliest due time known: the wait after a lease sweep reads no next due time, and
// without it an alarm hinted during the tick before the sweep would wait a whole tick more.
func TestHintBeyondTheWaitIsKeptAsTheNextDueTime(t *testing.T) {
	d := &Dispatcher{cfg: Config{Tick: 40 * time.Millisecond}, hints: app.NewHints(), clock: app.NewStoreClock()}
	d.next, d.nextOK = time.Now().Add(time.Hour), true // the last read: nothing due for an hour

	later := d.clock.Now().Add(200 * time.Millisecond)
	d.hints.Hint(later)
	start := time.Now()
	if d.sleep(context.Background(), d.cfg.Tick) {
		t.Fatal("the wait ended for a claim; only its tick passed")
	}
	if waited := time.Since(start); waited > 150*time.Millisecond {
		t.Fatalf("the wait took %s: the later hint pushed it back", waited)
	}
	if !d.nextOK || !d.next.Equal(later) {
		t.Errorf("next due time %s (known %v), want the hinted %s", d.next, d.nextOK, later)
	}
	// The cached wait after a sweep now ends at the hinted instant, not a tick later.
	if wait := d.nextWait(context.Background(), true); wait > 200*time.Millisecond || wait <= 0 {
		t.Errorf("the wait after a sweep is %s, want until the hinted instant", wait)
	}
}

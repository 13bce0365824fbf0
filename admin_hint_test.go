package chronos_test

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/domain"
)

// An operator's trigger makes an alarm due now, and its wake goes out now, not at the
// dispatcher's next tick: the action hints the dispatchers as an owner's create does.
func TestAdminTriggerWakesTheDispatcher(t *testing.T) {
	woke := make(chan time.Time, 1)
	n, _ := start(t, func(context.Context, domain.Wake) error {
		woke <- time.Now()
		return nil
	}, chronos.Config{Tick: 5 * time.Second})
	hour := time.Hour
	a, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &hour})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the dispatcher has read the next due time and sleeps
	at := time.Now()
	if _, err := n.Admin().Trigger(t.Context(), a.ID, "ops"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-woke:
		if late := got.Sub(at); late > 2*time.Second {
			t.Errorf("the triggered wake came %s after the trigger, want well within the 5s tick", late)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no wake after the trigger")
	}
}

package contract

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

var hintCases = []testCase{
	{"Delivered", testHintDelivered},
	{"ClosedWhenDone", testHintClosedWhenDone},
}

// hintWait bounds how long a published hint may take to arrive.
const hintWait = 5 * time.Second

// A hint published after subscribing arrives with its time. Subscriptions may need a
// moment to be in place, so the hint is republished until one arrives.
//
// A store that does not declare WakeHints must refuse to publish with ErrUnsupported, so
// callers know to rely on polling; the case checks that instead of skipping.
func testHintDelivered(t *testing.T, e *env) {
	if !e.caps.WakeHints {
		wantErr(t, "PublishHint without WakeHints", e.store.PublishHint(e.ctx, e.now()), ports.ErrUnsupported)
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	ch, err := e.store.SubscribeHints(ctx)
	if err != nil {
		t.Fatalf("SubscribeHints: %v", err)
	}
	at := e.now().Add(42 * time.Second)
	deadline := time.After(hintWait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := e.store.PublishHint(e.ctx, at); err != nil {
			t.Fatalf("PublishHint: %v", err)
		}
		select {
		case got, ok := <-ch:
			if !ok {
				t.Fatal("hint channel closed while subscribed")
			}
			if d := got.Sub(at); d < -time.Millisecond-e.tolerance() || d > time.Millisecond+e.tolerance() {
				t.Errorf("hint = %s, want %s", fmtTime(got), fmtTime(at))
			}
			return
		case <-tick.C:
		case <-deadline:
			t.Fatalf("no hint arrived within %s", hintWait)
		}
	}
}

// Ending the subscription's context closes its channel.
//
// A store that does not declare WakeHints must refuse to subscribe with ErrUnsupported
// and return no channel; the case checks that instead of skipping.
func testHintClosedWhenDone(t *testing.T, e *env) {
	if !e.caps.WakeHints {
		ch, err := e.store.SubscribeHints(e.ctx)
		wantErr(t, "SubscribeHints without WakeHints", err, ports.ErrUnsupported)
		if ch != nil {
			t.Error("SubscribeHints without WakeHints returned a channel")
		}
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	ch, err := e.store.SubscribeHints(ctx)
	if err != nil {
		cancel()
		t.Fatalf("SubscribeHints: %v", err)
	}
	cancel()
	deadline := time.After(hintWait)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("hint channel still open %s after its context ended", hintWait)
		}
	}
}

package dispatch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// blockingWaker holds every wake until release is closed, counting them as they start.
type blockingWaker struct {
	started chan string
	release chan struct{}
}

func (b blockingWaker) Wake(ctx context.Context, w domain.Wake) error {
	b.started <- w.Owner
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The default waker's receiver is shared by every owner: while a second owner uses it,
// a wake over SharedMaxInFlight waits on the node, and one that finds no place within
// QueueWait is held back (a deferral, not a failed attempt); another owner's wake below
// its share is sent at once.
func TestRouterSharedReceiverHoldsBackTheBusyOwner(t *testing.T) {
	def := blockingWaker{started: make(chan string, 10), release: make(chan struct{})}
	r := dispatch.NewEndpointRouter(def, &endpointsFake{eps: map[string]domain.Endpoint{}}, nil,
		dispatch.EndpointRouterConfig{SharedMaxInFlight: 2, QueueWait: 50 * time.Millisecond, BusyWait: 300 * time.Millisecond})
	ctx := t.Context()
	wake := func(owner string) <-chan error {
		done := make(chan error, 1)
		go func() { done <- r.Wake(ctx, domain.Wake{Owner: owner, AlarmID: "x"}) }()
		return done
	}
	var busy []<-chan error
	for range 2 {
		busy = append(busy, wake("busy"))
		<-def.started
	}
	quiet := wake("quiet")
	select {
	case owner := <-def.started:
		if owner != "quiet" {
			t.Fatalf("sent %q, want the quiet owner's wake", owner)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the quiet owner's wake waited behind the busy owner's")
	}
	// While the busy owner's third wake waits, the overview's loads show the wake URL
	// queuing (no owner, no name).
	third := wake("busy")
	deadline := time.Now().Add(5 * time.Second)
	for !hasWakeURLLoad(r.Loads(10), 1, 3) {
		if time.Now().After(deadline) {
			t.Fatalf("loads %+v: no wake URL entry with 1 queued and 3 in flight", r.Loads(10))
		}
		time.Sleep(time.Millisecond)
	}
	err := <-third
	var d ports.Deferral
	if !errors.As(err, &d) || d.DeferReason() != ports.DeferredReceiverShared || d.DeferFor() != 300*time.Millisecond {
		t.Fatalf("busy owner's third wake: %v; want held back (%s) for BusyWait", err, ports.DeferredReceiverShared)
	}
	close(def.release)
	for _, done := range append(busy, quiet) {
		if err := <-done; err != nil {
			t.Fatalf("a wake in flight: %v", err)
		}
	}
}

func hasWakeURLLoad(loads []domain.EndpointLoad, queued, inFlight int) bool {
	for _, l := range loads {
		if l.Owner == "" && l.Name == "" && l.Queued == queued && l.InFlight == inFlight {
			return true
		}
	}
	return false
}

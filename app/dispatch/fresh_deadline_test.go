package dispatch

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The fresh context outlives its parent's delivery deadline, has one of its own with
// the same cause, and ends with the parent for any other reason, with the parent's cause.
func TestFreshDeadline(t *testing.T) {
	t.Run("outlives the parent's delivery deadline", func(t *testing.T) {
		parent, cancel := context.WithTimeoutCause(context.Background(), 10*time.Millisecond, errDeliveryTimeout)
		defer cancel()
		fresh, stop := freshDeadline(parent, time.Minute)
		defer stop()
		<-parent.Done()
		time.Sleep(10 * time.Millisecond)
		if err := fresh.Err(); err != nil {
			t.Fatalf("the parent's delivery deadline ended the fresh context: %v", err)
		}
		if d, ok := fresh.Deadline(); !ok || time.Until(d) < 50*time.Second {
			t.Errorf("fresh deadline %v (%v), want a minute from now", d, ok)
		}
	})
	t.Run("its own deadline is a delivery timeout", func(t *testing.T) {
		fresh, stop := freshDeadline(context.Background(), 10*time.Millisecond)
		defer stop()
		<-fresh.Done()
		if cause := context.Cause(fresh); !errors.Is(cause, errDeliveryTimeout) {
			t.Errorf("cause %v, want errDeliveryTimeout", cause)
		}
	})
	t.Run("ends with the parent for any other reason", func(t *testing.T) {
		parent, cancel := context.WithCancelCause(context.Background())
		fresh, stop := freshDeadline(parent, time.Minute)
		defer stop()
		cancel(errAbandoned)
		select {
		case <-fresh.Done():
		case <-time.After(time.Second):
			t.Fatal("the parent abandoned the wake; the fresh context goes on")
		}
		if cause := context.Cause(fresh); !errors.Is(cause, errAbandoned) {
			t.Errorf("cause %v, want the parent's (errAbandoned)", cause)
		}
	})
	t.Run("stop ends it", func(t *testing.T) {
		fresh, stop := freshDeadline(context.Background(), time.Minute)
		stop()
		if fresh.Err() == nil {
			t.Error("still live after stop")
		}
	})
}

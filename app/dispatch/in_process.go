package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// InProcessWaker is a ports.Waker that runs the wake as a Go call in this process (the
// root package's handlers). For such a waker the dispatcher gives every wake a deadline
// of its own, DeliveryTimeout from its start, which the handler may push back with
// ExtendLease; the context's cause says why it ended (ErrWakeTimeout, ErrLeaseLost,
// or shutdown). Wake must return as soon as its context is done, whatever the handler
// does: a handler still running then has its result ignored.
type InProcessWaker interface {
	ports.Waker
	InProcess()
}

// ErrWakeTimeout is the cause of an in-process wake's context when its deadline passed.
var ErrWakeTimeout = errors.New("the handler did not finish within its delivery timeout")

// ErrNotInWake: ExtendLease was called with a context that is not a wake's.
var ErrNotInWake = errors.New("chronos: ExtendLease needs the context of an in-process wake")

type wakeLeaseKey struct{}

// wakeLease is one in-process wake's lease and deadline, reachable from its context.
type wakeLease struct {
	d      *Dispatcher
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	alarmID  string
	fence    domain.Fence // the lease held now; ExtendLease moves it
	deadline time.Time
	timer    *time.Timer
	lost     bool
}

// deliverInProcess runs one wake on an InProcessWaker under a deadline of its own, and
// leaves in f the fence the outcome must present (ExtendLease may have moved it).
func (d *Dispatcher) deliverInProcess(work context.Context, f *domain.Firing) (domain.Outcome, bool) {
	ctx, cancel := context.WithCancelCause(work)
	defer cancel(nil)
	l := &wakeLease{d: d, cancel: cancel, alarmID: f.Alarm.ID, fence: f.Alarm.Fence(),
		deadline: time.Now().Add(d.cfg.DeliveryTimeout)}
	l.timer = time.AfterFunc(d.cfg.DeliveryTimeout, func() { cancel(ErrWakeTimeout) })
	defer l.timer.Stop()
	out, decided := d.deliverOne(context.WithValue(ctx, wakeLeaseKey{}, l), f.Alarm)
	l.mu.Lock()
	f.Alarm.ClaimedBy, f.Alarm.ClaimedAt = l.fence.Worker, l.fence.ClaimedAt
	l.mu.Unlock()
	return out, decided
}

// ExtendLease gives the in-process wake whose context this is d more time from now: its
// deadline moves to now + d (never earlier than it was), and its alarm's lease in the
// store is extended past that, fenced like every write. It returns ErrLeaseLost (and
// cancels the wake's context with that cause) when the lease was no longer this wake's:
// whatever the handler does then, its outcome changes nothing.
func ExtendLease(ctx context.Context, d time.Duration) error {
	l, ok := ctx.Value(wakeLeaseKey{}).(*wakeLease)
	if !ok {
		return ErrNotInWake
	}
	if d <= 0 {
		return fmt.Errorf("chronos: ExtendLease needs a positive duration, got %s", d)
	}
	if err := context.Cause(ctx); err != nil {
		return err // too late: the deadline passed, the lease was lost, or shutdown
	}
	return l.extend(ctx, d)
}

func (l *wakeLease) extend(ctx context.Context, by time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return ports.ErrLeaseLost
	}
	cfg := l.d.cfg
	// The lease outlasts the new deadline by the slack the configuration keeps between
	// the lease and the delivery timeout, so the outcome can still be applied under it.
	f, err := l.d.store.ExtendLease(ctx, ports.ExtendLease{
		AlarmID: l.alarmID, Fence: l.fence, Lease: cfg.Lease, For: by + cfg.Lease - cfg.DeliveryTimeout,
	})
	if errors.Is(err, ports.ErrLeaseLost) {
		l.lost = true
		l.cancel(ports.ErrLeaseLost)
		return err
	}
	if err != nil {
		return err
	}
	l.fence = f
	if deadline := time.Now().Add(by); deadline.After(l.deadline) {
		l.deadline = deadline
		l.timer.Reset(time.Until(deadline))
	}
	return nil
}

package chronos

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Handler receives wakes in this process, like River's workers: every guarantee of a
// webhook wake holds (the lease, fencing, retries with backoff, at-most-once), only the
// delivery is a Go call.
//
// Return nil to acknowledge the wake; any error is a failed attempt, retried with
// backoff, its text the alarm's last_error. The context is cancelled at the delivery
// timeout (context.Cause says ErrWakeTimeout) and when the lease was lost; the attempt
// then counts as failed at once, and whatever the handler returns later changes
// nothing (it is logged and counted). A long handler asks for more time with
// ExtendLease. A panic is a failed attempt, never a crashed node.
type Handler interface {
	HandleWake(ctx context.Context, w domain.Wake) error
}

// HandlerFunc is a function as a Handler.
type HandlerFunc func(ctx context.Context, w domain.Wake) error

// HandleWake calls f.
func (f HandlerFunc) HandleWake(ctx context.Context, w domain.Wake) error { return f(ctx, w) }

// ErrWakeTimeout is the cause of a handler's context when its delivery timeout passed.
var ErrWakeTimeout = dispatch.ErrWakeTimeout

// ExtendLease gives the wake whose context ctx is d more time from now: its deadline
// moves to now + d (never earlier), and its alarm's lease in the store is extended past
// that, fenced like every write, so no other node delivers the occurrence meanwhile.
// It returns an error wrapping ports.ErrLeaseLost when another node or an owner action
// took the alarm (the context is then cancelled: stop), and dispatch.ErrNotInWake for a
// context that is not a handler's.
func ExtendLease(ctx context.Context, d time.Duration) error { return dispatch.ExtendLease(ctx, d) }

// handlerWaker runs a Handler as the dispatcher's waker (dispatch.InProcessWaker).
type handlerWaker struct {
	h    Handler
	log  *zap.Logger
	late atomic.Int64 // handlers that returned after their wake was given up
}

var _ dispatch.InProcessWaker = (*handlerWaker)(nil)

func (*handlerWaker) InProcess() {}

// Wake runs the handler and returns its result, or, as soon as the wake's context ends
// first, why it ended: the handler keeps running (Go cannot stop it), and its result,
// when it comes, is ignored.
func (hw *handlerWaker) Wake(ctx context.Context, w domain.Wake) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("handler panicked: %v", r)
			}
		}()
		done <- hw.h.HandleWake(ctx, w)
	}()
	select {
	case err := <-done:
		if cause := context.Cause(ctx); cause != nil {
			return givenUp(cause, w)
		}
		return err
	case <-ctx.Done():
		go hw.ignoreLate(done, w)
		return givenUp(context.Cause(ctx), w)
	}
}

// givenUp is the attempt's error when the wake's context ended before the handler.
func givenUp(cause error, w domain.Wake) error {
	switch {
	case errors.Is(cause, dispatch.ErrWakeTimeout):
		return fmt.Errorf("handler did not finish within its delivery timeout: %w", cause)
	case errors.Is(cause, ports.ErrLeaseLost):
		return fmt.Errorf("handler lost its lease (another node or an owner action took the alarm): %w", cause)
	}
	return fmt.Errorf("wake given up: %w", cause)
}

// ignoreLate waits for a handler that outlived its wake, so its result is logged, not
// lost without a word, and counted.
func (hw *handlerWaker) ignoreLate(done <-chan error, w domain.Wake) {
	err := <-done
	hw.late.Add(1)
	if hw.log != nil {
		hw.log.Warn("a handler returned after its wake was given up; its result changes nothing",
			zap.String("alarm_id", w.AlarmID), zap.String("occurrence_key", w.OccurrenceKey), zap.Error(err))
	}
}

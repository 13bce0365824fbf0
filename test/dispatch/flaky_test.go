package dispatch_test

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/ports"
)

// flakyStore is the real store whose first `fail` claims fail, as during a database
// restart. Everything else goes to the real store.
type flakyStore struct {
	ports.Store
	fail  int64
	calls atomic.Int64
}

func (f *flakyStore) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if f.calls.Add(1) <= f.fail {
		return ports.Claimed{}, errors.New("connection refused (injected)")
	}
	return f.Store.ClaimDue(ctx, p)
}

// hungStore is the real store whose first `hang` claims never answer, as on a
// connection a network fault left hanging (no answer, no reset): they return only when
// their context ends.
type hungStore struct {
	ports.Store
	hang  int64
	calls atomic.Int64
}

func (h *hungStore) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if h.calls.Add(1) <= h.hang {
		<-ctx.Done()
		return ports.Claimed{}, ctx.Err()
	}
	return h.Store.ClaimDue(ctx, p)
}

func newDispatcherOn(s ports.Store, e *env, w ports.Waker) (*dispatch.Dispatcher, error) {
	return dispatch.New(s, w, e.sclock, e.hints, testConfig("flaky"), nil)
}

package dispatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// oneEndpoint is an EndpointSource with a single endpoint "hung" of owner "o".
type oneEndpoint struct{}

func (oneEndpoint) GetEndpoint(_ context.Context, owner, name string) (domain.Endpoint, error) {
	if owner != "o" || name != "hung" {
		return domain.Endpoint{}, ports.ErrNotFound
	}
	return domain.Endpoint{Owner: "o", Name: "hung", URL: "http://hung"}, nil
}

func (oneEndpoint) GetState(context.Context, string) (ports.State, bool, error) {
	return ports.State{Value: "v1"}, true, nil
}

// hangs never answers: it returns when its context ends, with the context's error, as
// the webhook waker does.
type hangs struct{}

func (hangs) Wake(ctx context.Context, _ domain.Wake) error {
	<-ctx.Done()
	return ctx.Err()
}

// A receiver that never answers opens its endpoint's breaker also when the node's
// delivery timeout ends each wake (the endpoint's own timeout being the same or longer),
// while wakes cut short by a shutdown teach the breaker nothing.
func TestBreakerCountsDeliveryTimeoutsNotShutdowns(t *testing.T) {
	r := NewEndpointRouter(hangs{}, oneEndpoint{}, func(domain.Endpoint) (ports.Waker, error) { return hangs{}, nil },
		EndpointRouterConfig{BreakerFailures: 3, BreakerCooldown: time.Minute})
	w := domain.Wake{AlarmID: "a", Owner: "o", Endpoint: "hung"}
	wake := func(cause error) error {
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(5*time.Millisecond, func() { cancel(cause) })
		return r.Wake(ctx, w)
	}
	for range 5 {
		if err := wake(errAbandoned); errors.As(err, new(ports.Deferral)) {
			t.Fatalf("abandoned wakes opened the breaker: %v", err)
		}
	}
	for i := range 3 {
		if err := wake(errDeliveryTimeout); errors.As(err, new(ports.Deferral)) {
			t.Fatalf("held back after %d timeouts, want after 3: %v", i, err)
		}
	}
	var held ports.Deferral
	if err := wake(errDeliveryTimeout); !errors.As(err, &held) || held.DeferReason() != ports.DeferredEndpointBreaker {
		t.Fatalf("after 3 delivery timeouts: %v, want held back by the open breaker", err)
	}
}

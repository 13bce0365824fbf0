package dispatch

import (
	"context"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

type goCall struct{}

func (goCall) Wake(context.Context, domain.Wake) error { return nil }
func (goCall) InProcess()                              {}

type webhookCall struct{}

func (webhookCall) Wake(context.Context, domain.Wake) error { return nil }

// Behind an endpoint router, only the wakes its in-process default takes get a deadline
// of their own: those of alarms naming an endpoint are webhooks to it.
func TestInProcessWakes(t *testing.T) {
	plain, named := domain.Alarm{}, domain.Alarm{Endpoint: "billing"}
	for _, c := range []struct {
		name             string
		inProcess        func(domain.Alarm) bool
		plainIn, namedIn bool
	}{
		{"in-process waker", inProcessWakes(goCall{}), true, true},
		{"router over an in-process default", inProcessWakes(NewEndpointRouter(goCall{}, nil, nil, EndpointRouterConfig{})), true, false},
		{"router over a webhook", inProcessWakes(NewEndpointRouter(webhookCall{}, nil, nil, EndpointRouterConfig{})), false, false},
		{"webhook", inProcessWakes(webhookCall{}), false, false},
	} {
		if got := c.inProcess(plain); got != c.plainIn {
			t.Errorf("%s, an alarm naming no endpoint: in process %v, want %v", c.name, got, c.plainIn)
		}
		if got := c.inProcess(named); got != c.namedIn {
			t.Errorf("%s, an alarm naming an endpoint: in process %v, want %v", c.name, got, c.namedIn)
		}
	}
}

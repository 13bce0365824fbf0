package chronos

import (
	"cmp"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// WebhookOptions configure the waker `chronos serve` delivers with (NewWebhookWaker).
type WebhookOptions struct {
	// URL and Secrets receive and sign the wakes of alarms that name no endpoint
	// (--wake-url, --wake-secret).
	URL     string
	Secrets []string
	// DeliveryTimeout and Lease are the node's (Config's; zero: the dispatcher's
	// defaults): an endpoint's own timeout may only shorten DeliveryTimeout, and a wake
	// waits in its endpoint's queue no longer than both allow (endpointQueueWait).
	DeliveryTimeout time.Duration
	Lease           time.Duration
	// Concurrency bounds each receiver's kept connections (the node's Concurrency); an
	// endpoint's max_in_flight bounds its own further.
	Concurrency int
	// UserAgent is the whole User-Agent header ("chronos/<version>").
	UserAgent string
	// ReceiverErrors is what a failed delivery's last_error quotes of the receiver, one
	// setting for every receiver: the shared URL is the operator's, whose answers are
	// none of the owners' business; an endpoint's receiver is its owner's, who reads its
	// own logs there.
	ReceiverErrors webhook.ReceiverErrors
	// BreakerFailures and BreakerCooldown are app.EndpointRouterConfig's (zero: its
	// defaults).
	BreakerFailures int
	BreakerCooldown time.Duration
	// Logger receives the endpoints' breaker changes; Metrics counts them and the
	// queues. nil: none.
	Logger  *zap.Logger
	Metrics ports.Metrics
}

// NewWebhookWaker is the waker of `chronos serve`: signed POSTs to URL for alarms that
// name no endpoint, and to the owner's endpoint (its URL, secrets, timeout) for those
// that do, through an app.EndpointRouter over store's endpoints, which keeps each
// endpoint to its max_in_flight, rate and breaker. closeIdle closes URL's idle
// connections once the node has stopped.
func NewWebhookWaker(store ports.Store, o WebhookOptions) (w *app.EndpointRouter, closeIdle func(), err error) {
	d := app.DefaultDispatcherConfig()
	deliveryTimeout, lease := cmp.Or(o.DeliveryTimeout, d.DeliveryTimeout), cmp.Or(o.Lease, d.Lease)
	def, err := webhook.New(webhook.Options{URL: o.URL, Secrets: o.Secrets, Timeout: deliveryTimeout,
		MaxConns: o.Concurrency, UserAgent: o.UserAgent, ReceiverErrors: o.ReceiverErrors})
	if err != nil {
		return nil, nil, err
	}
	// Each endpoint's waker keeps its own connections, as many as it may use at once.
	build := func(e domain.Endpoint) (ports.Waker, error) {
		timeout := deliveryTimeout
		if e.Timeout > 0 {
			timeout = min(e.Timeout, deliveryTimeout) // the dispatcher's deadline is the node's
		}
		conns := o.Concurrency
		if e.MaxInFlight > 0 {
			conns = min(conns, e.MaxInFlight)
		}
		return webhook.New(webhook.Options{URL: e.URL, Secrets: e.Secrets, Timeout: timeout, MaxConns: conns,
			UserAgent: o.UserAgent, ReceiverErrors: o.ReceiverErrors})
	}
	log := o.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return app.NewEndpointRouter(def, store, build, app.EndpointRouterConfig{
		BreakerFailures: o.BreakerFailures, BreakerCooldown: o.BreakerCooldown, Log: log, Metrics: o.Metrics,
		QueueWait: endpointQueueWait(deliveryTimeout, lease), SendTimeout: deliveryTimeout,
	}), def.Close, nil
}

// endpointQueueWait is how long a wake may wait in its endpoint's queue on a node:
// half the delivery timeout, and never so long that the wait and then the whole
// delivery timeout could outlast the lease (another node would claim the alarm
// mid-delivery). 5 s with serve's defaults.
func endpointQueueWait(deliveryTimeout, lease time.Duration) time.Duration {
	return max(min(deliveryTimeout/2, (lease-deliveryTimeout)/2), 0)
}

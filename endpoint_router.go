package chronos

import (
	"cmp"
	"net/netip"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// EndpointOptions tune the delivery of wakes whose alarm names one of its owner's
// endpoints (Node.Endpoints): POSTs to the endpoint's URL signed with its secrets,
// through an dispatch.EndpointRouter that keeps each endpoint to its max_in_flight, rate and
// breaker. Wakes that name no endpoint go to Config's Handler or Waker.
type EndpointOptions struct {
	// UserAgent is the whole User-Agent header ("": the webhook adapter's).
	UserAgent string
	// ReceiverErrors is what a failed delivery's last_error quotes of the receiver:
	// an endpoint's receiver is its owner's, who reads its own logs there.
	ReceiverErrors webhook.ReceiverErrors
	// BreakerFailures and BreakerCooldown are dispatch.EndpointRouterConfig's (zero: its
	// defaults).
	BreakerFailures int
	BreakerCooldown time.Duration
	// Waker, when set, makes each endpoint's waker instead of signed POSTs (serve
	// --dev prints every wake).
	Waker dispatch.WakerBuilder
	// AllowCIDRs are ranges an endpoint's url and failure_url may reach although the
	// egress policy refuses them (domain.EgressPolicy: loopback, private, link-local,
	// unspecified, multicast, CGNAT, reserved): serve's --endpoint-allow-cidr. Without
	// them a wake to such an address is refused when the node connects, recorded as a
	// failed attempt and not retried, and such a URL written as an address is refused
	// when registered. Config.Waker (--wake-url) is the operator's and never checked.
	AllowCIDRs []netip.Prefix
}

// egress is the policy wakes to the owners' endpoints are held to.
func (o EndpointOptions) egress() domain.EgressPolicy {
	return domain.NewEgressPolicy(o.AllowCIDRs)
}

// NewWebhookWaker is the waker `chronos serve` gives Config.Waker: POSTs to url signed
// with secrets, under cfg's delivery timeout (its default when zero), keeping at most
// cfg.Concurrency connections, with cfg.Endpoints' UserAgent and ReceiverErrors. Close
// it once the node has stopped.
//
// Its answers' bodies go to the attempt log (cfg.AttemptBodyBytes) only when
// ReceiverErrors is full: this one receiver serves every owner, and is the operator's,
// so by default owners read its status and nothing of its own words, in the attempt
// log as in last_error. An endpoint's receiver is its owner's: its bodies are kept.
func NewWebhookWaker(cfg Config, url string, secrets []string) (*webhook.Waker, error) {
	d := dispatch.DefaultConfig()
	bodyBytes := 0
	if cfg.Endpoints.ReceiverErrors == webhook.ReceiverErrorsFull && cfg.AttemptBodyBytes >= 0 {
		bodyBytes = cfg.attemptBodyBytes()
	}
	return webhook.New(webhook.Options{URL: url, Secrets: secrets, Timeout: cmp.Or(cfg.DeliveryTimeout, d.DeliveryTimeout),
		MaxConns: cmp.Or(cfg.Concurrency, d.Concurrency), UserAgent: cfg.Endpoints.UserAgent, ReceiverErrors: cfg.Endpoints.ReceiverErrors,
		AttemptBodyBytes: bodyBytes})
}

// newEndpointRouter routes the wakes of alarms that name an endpoint to that endpoint,
// and the rest to def; d is the node's dispatcher configuration.
func newEndpointRouter(store ports.Store, def ports.Waker, o EndpointOptions, d dispatch.Config, sharedMax int, metrics ports.Metrics, log *zap.Logger) *dispatch.EndpointRouter {
	bodyBytes := max(d.AttemptBodyBytes, 0) // dispatch.Config.Validate refuses a bad one
	build := o.Waker
	egress := o.egress()
	if build == nil {
		// Each endpoint's waker keeps its own connections, as many as it may use at once.
		build = func(e domain.Endpoint) (ports.Waker, error) {
			timeout := d.DeliveryTimeout
			if e.Timeout > 0 {
				timeout = min(e.Timeout, d.DeliveryTimeout) // the dispatcher's deadline is the node's
			}
			conns := d.Concurrency
			if e.MaxInFlight > 0 {
				conns = min(conns, e.MaxInFlight)
			}
			return webhook.New(webhook.Options{URL: e.URL, Secrets: e.Secrets, Timeout: timeout, MaxConns: conns,
				UserAgent: o.UserAgent, ReceiverErrors: o.ReceiverErrors, AttemptBodyBytes: min(bodyBytes, domain.MaxReceiptBody),
				Egress: &egress})
		}
	}
	return dispatch.NewEndpointRouter(def, store, build, dispatch.EndpointRouterConfig{
		BreakerFailures: o.BreakerFailures, BreakerCooldown: o.BreakerCooldown, Log: log, Metrics: metrics,
		QueueWait: endpointQueueWait(d.DeliveryTimeout, d.Lease), SendTimeout: d.DeliveryTimeout,
		SharedMaxInFlight: sharedMax,
	})
}

// defaultWakeURLMaxInFlight is WakeURLMaxInFlight's default: enough wakes in flight to
// keep a receiver that answers in a few milliseconds busy, few enough that one owner's
// burst queued in it holds another owner's wake for milliseconds, not for the burst.
const defaultWakeURLMaxInFlight = 128

// wakeURLMaxInFlight is the limit of the default waker's shared receiver: the one set,
// else the default for a webhook waker (a receiver serving every owner) and none for
// any other (an in-process waker has no queue to share).
func (c Config) wakeURLMaxInFlight(def ports.Waker) int {
	switch {
	case c.WakeURLMaxInFlight < 0:
		return 0
	case c.WakeURLMaxInFlight > 0:
		return c.WakeURLMaxInFlight
	}
	if _, ok := def.(*webhook.Waker); ok {
		return defaultWakeURLMaxInFlight
	}
	return 0
}

// endpointQueueWait is how long a wake may wait in its endpoint's queue on a node:
// half the delivery timeout, and never so long that the wait and then the whole
// delivery timeout could outlast the lease (another node would claim the alarm
// mid-delivery). 5 s with serve's defaults.
func endpointQueueWait(deliveryTimeout, lease time.Duration) time.Duration {
	return max(min(deliveryTimeout/2, (lease-deliveryTimeout)/2), 0)
}

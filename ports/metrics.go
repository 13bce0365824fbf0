package ports

import "time"

// Metrics receives what chronos measures as it works: the dispatcher's claims and
// wakes, retention's deletions, the pause gate, the sampled alarm counts and the API's
// requests. adapters/metrics implements it for Prometheus; NopMetrics discards
// everything. Every method is called on hot paths from many goroutines, so it must be
// cheap and never block. No argument is an owner, an alarm id or any other unbounded
// value, so implementations may use every argument as a label.
type Metrics interface {
	// Claimed: one successful ClaimDue that took took and returned n alarms (n may be 0).
	Claimed(n int, took time.Duration)
	// NextDueRead: the dispatcher read the next due time (ClaimStore.NextDue) before
	// sleeping. With Claimed, it is what a node with nothing due asks of the store.
	NextDueRead()
	// Woke: one wake finished. outcome is WakeDelivered or WakeFailed; lag is when it
	// was delivered minus when it was due (the alarm's next_fire_at at the claim);
	// took is the delivery's own duration.
	Woke(outcome string, lag, took time.Duration)
	// Deferred: a wake held back, not sent and not an attempt, for reason (one of the
	// Deferred* constants: its endpoint had no room, was over its rate, or its breaker
	// was open; or its owner was at its in-flight cap).
	Deferred(reason string)
	// ClaimOwners: how many owners one claim that returned alarms served (the fairness
	// between owners at a glance: 1 under one owner's backlog means nobody else had
	// due work).
	ClaimOwners(n int)
	// EndpointQueues: on this node, how many endpoints have wakes waiting for room in
	// their queue, and how many wakes wait in all; called when either changes.
	EndpointQueues(endpoints, wakes int)
	// EndpointBreaker: an endpoint's breaker opened (open) or closed again on this node.
	EndpointBreaker(open bool)
	// EgressRefused: a wake to an endpoint or a failure_url not sent because the egress
	// policy refuses its address; class is one of domain.EgressClasses. The attempt is
	// recorded as failed too (Woke).
	EgressRefused(class string)
	// Stale: n outcomes refused by the lease fence (another worker or an admin or owner
	// action took the alarm first).
	Stale(n int)
	// RetentionDeleted: retention deleted n rows of table ("alarms" or "alarm_events").
	RetentionDeleted(table string, n int)
	// DispatchPaused: the cluster-wide pause gate as this node last read it.
	DispatchPaused(paused bool)
	// AlarmCounts: a sample of CountAlarms, taken by one node of the cluster at a time.
	// ok=false withdraws this node's sample (another node samples now), so a cluster's
	// nodes never report the same backlog twice.
	AlarmCounts(c AlarmCounts, ok bool)
	// Request: the API answered one request. route is the router's path template
	// ("/v1/alarms/{id}"), never the raw path; "unmatched" when no route matched.
	Request(method, route string, code int, took time.Duration)
	// Refused: a request refused by a limit, before it did anything: reason is
	// RefusedQuota (a create over its owner's quota) or RefusedRate (a token over its
	// request rate). One call per refused request, whatever it carried (a batch is one).
	Refused(reason string)
}

// Wake outcomes for Metrics.Woke; Metrics.Stale counts the third, "stale".
const (
	WakeDelivered = "delivered"
	WakeFailed    = "failed"
)

// Reasons for Metrics.Deferred.
const (
	DeferredEndpointFull    = "endpoint_full"    // max_in_flight reached and its queue full
	DeferredEndpointRate    = "endpoint_rate"    // over rate_per_second
	DeferredEndpointBreaker = "endpoint_breaker" // breaker open, or half-open with its probe out
	DeferredOwnerCap        = "owner_cap"        // the owner at --owner-max-in-flight
	DeferredReceiverShared  = "receiver_shared"  // the wake URL's receiver full while owners share it
)

// Refusal reasons for Metrics.Refused: the API's error codes for them.
const (
	RefusedQuota = "quota_exceeded"
	RefusedRate  = "rate_limited"
)

// NopMetrics discards every measurement.
type NopMetrics struct{}

func (NopMetrics) Claimed(int, time.Duration)                 {}
func (NopMetrics) NextDueRead()                               {}
func (NopMetrics) Woke(string, time.Duration, time.Duration)  {}
func (NopMetrics) Stale(int)                                  {}
func (NopMetrics) Deferred(string)                            {}
func (NopMetrics) ClaimOwners(int)                            {}
func (NopMetrics) EndpointQueues(int, int)                    {}
func (NopMetrics) EndpointBreaker(bool)                       {}
func (NopMetrics) EgressRefused(string)                       {}
func (NopMetrics) RetentionDeleted(string, int)               {}
func (NopMetrics) DispatchPaused(bool)                        {}
func (NopMetrics) AlarmCounts(AlarmCounts, bool)              {}
func (NopMetrics) Request(string, string, int, time.Duration) {}
func (NopMetrics) Refused(string)                             {}

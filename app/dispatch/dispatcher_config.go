package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Config holds the dispatcher's tunables. Every field must be set (Validate
// says which is not): start from DefaultConfig. The root package's Config is
// the one whose zero values take the defaults.
type Config struct {
	Worker          string        // this process's worker id; stamped on every lease
	Tick            time.Duration // how often an idle loop reads the next due time; hints and due times wake it sooner
	Lease           time.Duration // how long a claim protects an alarm; must exceed DeliveryTimeout
	Batch           int           // most alarms per claim; claims adapt below it (claimSize)
	Concurrency     int           // most wakes in flight at once
	DeliveryTimeout time.Duration // per wake
	DrainTimeout    time.Duration // on shutdown, how long in-flight wakes may finish
	Policy          domain.Policy
	// OwnerMaxInFlight caps the wakes one owner has in flight on this node; a wake over
	// it is held back and due again at its owner's pace. 0 means Concurrency/2 (so one
	// owner's slow receivers leave half the slots to the others); Concurrency or more
	// means no cap.
	OwnerMaxInFlight int
	// UnfairClaims turns fair claims off: under a backlog too, claims take the oldest
	// due first whoever owns them (for comparison; see ports.FairClaim).
	UnfairClaims bool
	// AttemptBodyBytes is how much of a receiver's answer each attempt keeps in the
	// attempt log (ports.ResponseWaker): 0 keeps none, at most domain.MaxReceiptBody.
	AttemptBodyBytes int

	// Metrics receives claims, wakes and stale outcomes; nil: none.
	Metrics ports.Metrics
	// Gate is the cluster-wide pause gate, checked before every claim; nil: never paused.
	// The dispatcher only asks it: whoever builds it runs it.
	Gate PauseGate
	// Calendars is where series' exclusion calendars are read; nil: no series is
	// excluded from anything.
	Calendars CalendarSource
	// Tracer records the claim, wake and apply spans (docs/tracing.md); nil: none, and
	// no cost beyond sending on an alarm's stored trace context.
	Tracer trace.Tracer
}

// PauseGate says whether dispatching may go on: Wait returns true once it may (at once
// when it is not paused), false when ctx ends first.
type PauseGate interface {
	Wait(ctx context.Context) bool
}

// DefaultConfig is the configuration of DESIGN, with Batch and Concurrency sized so
// that a node nobody tuned keeps up under a backlog (docs/benchmarks.md): claims adapt
// to what is due (claimSize), so a large Batch costs nothing when little is. A receiver
// that cannot take 1,000 concurrent requests is the reason to lower --concurrency.
func DefaultConfig() Config {
	return Config{
		Tick:             time.Second,
		Lease:            2 * time.Minute,
		Batch:            1000,
		Concurrency:      1000,
		DeliveryTimeout:  10 * time.Second,
		DrainTimeout:     10 * time.Second,
		AttemptBodyBytes: domain.DefaultReceiptBody,
		Policy:           domain.Policy{Backoff: domain.DefaultBackoff, MisfireThreshold: domain.DefaultMisfireThreshold},
	}
}

// Validate refuses a configuration that would break a guarantee.
func (c Config) Validate() error {
	var errs []error
	if c.Worker == "" {
		errs = append(errs, errors.New("worker id is required"))
	}
	if c.Tick <= 0 {
		errs = append(errs, fmt.Errorf("tick must be positive, got %s", c.Tick))
	}
	if c.Batch < 1 {
		errs = append(errs, fmt.Errorf("batch must be at least 1, got %d", c.Batch))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("concurrency must be at least 1, got %d", c.Concurrency))
	}
	if c.DeliveryTimeout <= 0 {
		errs = append(errs, fmt.Errorf("delivery timeout must be positive, got %s", c.DeliveryTimeout))
	}
	// A lease that can run out while its wake is still being delivered lets a second
	// worker claim and deliver the same occurrence: the lease must outlast the delivery.
	if c.Lease <= c.DeliveryTimeout {
		errs = append(errs, fmt.Errorf("lease (%s) must exceed the delivery timeout (%s): otherwise a slow wake's lease expires mid-delivery and another worker fires it again", c.Lease, c.DeliveryTimeout))
	}
	if c.OwnerMaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("owner max in flight must not be negative, got %d", c.OwnerMaxInFlight))
	}
	if c.DrainTimeout < 0 {
		errs = append(errs, fmt.Errorf("drain timeout must not be negative, got %s", c.DrainTimeout))
	}
	if c.Policy.Backoff.Base <= 0 || c.Policy.Backoff.Cap < c.Policy.Backoff.Base {
		errs = append(errs, fmt.Errorf("backoff base (%s) must be positive and not above the cap (%s)", c.Policy.Backoff.Base, c.Policy.Backoff.Cap))
	}
	if c.AttemptBodyBytes < 0 || c.AttemptBodyBytes > domain.MaxReceiptBody {
		errs = append(errs, fmt.Errorf("attempt body bytes must be between 0 and %d, got %d", domain.MaxReceiptBody, c.AttemptBodyBytes))
	}
	if c.Policy.MisfireThreshold < 0 {
		errs = append(errs, fmt.Errorf("misfire threshold must not be negative, got %s", c.Policy.MisfireThreshold))
	}
	return errors.Join(errs...)
}

// storeTimeout bounds each of the dispatcher's store calls (see StoreCallTimeout): a
// claim, a next-due read, an at-most-once advance, a step of ending pauses, one attempt
// of an apply. Never more than half the lease: a claim answered later than that has
// left its wakes less than half their lease, and an apply is retried for half a lease.
func (c Config) storeTimeout() time.Duration { return min(c.Lease/2, app.StoreCallTimeout) }

// ownerCap is the per-owner in-flight cap in force; 0 when it cannot bind.
func (c Config) ownerCap() int {
	n := c.OwnerMaxInFlight
	if n == 0 {
		n = max(1, c.Concurrency/2)
	}
	if n >= c.Concurrency {
		return 0
	}
	return n
}

package domain

import (
	"cmp"
	"slices"
	"time"
)

// Worker is one chronos process (a node), registered so operators can see who is alive
// and who holds leases. The store stamps StartedAt and HeartbeatAt with its own clock.
type Worker struct {
	ID          string
	Host        string
	PID         int
	Version     string
	StartedAt   time.Time
	HeartbeatAt time.Time
	Stats       WorkerStats // as of the last heartbeat
}

// WorkerStats is what a node reports about its own dispatching at every heartbeat. The
// admin overview sums the live nodes' windows for "fires in the last minute / hour": a
// node that died takes its windows with it, which is the price of not writing a row
// per fire.
type WorkerStats struct {
	InFlight    int   `json:"in_flight"`    // wakes being delivered now
	Claimed     int64 `json:"claimed"`      // alarms claimed since the node started
	Delivered   int64 `json:"delivered"`    // wakes acknowledged since start
	Failed      int64 `json:"failed"`       // wakes that failed since start
	Stale       int64 `json:"stale"`        // outcomes refused by the lease fence since start
	Delivered1m int64 `json:"delivered_1m"` // in the last minute
	Failed1m    int64 `json:"failed_1m"`
	Delivered1h int64 `json:"delivered_1h"` // in the last hour
	Failed1h    int64 `json:"failed_1h"`
	// Wake lag (delivered minus due) over the last minute, to within a factor of two;
	// 0 when nothing was woken.
	LagP50Ms float64 `json:"lag_p50_ms"`
	LagP99Ms float64 `json:"lag_p99_ms"`
	// Endpoints are the node's busiest endpoints, at most MaxWorkerEndpoints of them
	// (BusiestEndpoints): those with wakes queued or at their max_in_flight. None when
	// no endpoint is, or the node routes no wakes to endpoints.
	Endpoints []EndpointLoad `json:"endpoints,omitempty"`
}

// MaxWorkerEndpoints bounds WorkerStats.Endpoints: every heartbeat writes them.
const MaxWorkerEndpoints = 10

// EndpointLoad is how busy one endpoint is on a node, or summed over the live nodes.
//
// An EndpointLoad with an empty Owner and Name is the node's wake URL (serve --wake-url),
// which every owner's wakes share: its queue is the one --wake-url-max-in-flight makes.
type EndpointLoad struct {
	Owner    string `json:"owner"`
	Name     string `json:"name"`
	Queued   int    `json:"queued"`    // wakes waiting in the endpoint's queue for room or for their turn
	InFlight int    `json:"in_flight"` // wakes being delivered to it
	// HeldBack counts the wakes held back for the endpoint's room, rate or breaker (due
	// again at its pace) since the node started.
	HeldBack int64 `json:"held_back"`
}

// BusiestEndpoints sorts loads in place, busiest first (most queued, then most in
// flight, then most held back; by owner and name among equals), and keeps at most
// limit of them.
func BusiestEndpoints(loads []EndpointLoad, limit int) []EndpointLoad {
	slices.SortFunc(loads, func(a, b EndpointLoad) int {
		return cmp.Or(cmp.Compare(b.Queued, a.Queued), cmp.Compare(b.InFlight, a.InFlight),
			cmp.Compare(b.HeldBack, a.HeldBack), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Name, b.Name))
	})
	return loads[:min(len(loads), max(limit, 0))]
}

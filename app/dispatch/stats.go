package dispatch

import (
	"sync/atomic"
	"time"
)

// Stats counts what a dispatcher did. Cheap atomics: read by metrics and the benchmark.
type Stats struct {
	claims, claimed, claimErrors atomic.Int64
	delivered, failed, abandoned atomic.Int64
	deferred                     atomic.Int64
	applied, stale, applyErrors  atomic.Int64
	advanceSkipped, applyCalls   atomic.Int64
	claimNanos                   atomic.Int64
	denseClaims                  atomic.Int64
	nextDueReads                 atomic.Int64
}

// StatsSnapshot is a point-in-time copy of Stats.
type StatsSnapshot struct {
	Claims         int64 // ClaimDue calls that succeeded
	Claimed        int64 // alarms claimed
	ClaimErrors    int64
	Delivered      int64         // wakes acknowledged
	Failed         int64         // wakes that failed
	Abandoned      int64         // wakes cut short by shutdown (lease kept)
	Deferred       int64         // wakes held back, not sent (endpoint busy, breaker open)
	Applied        int64         // transitions applied
	Stale          int64         // transitions refused by the fence
	ApplyErrors    int64         // Apply calls that failed (after retries)
	AdvanceSkipped int64         // at-most-once wakes not sent because the advance did not commit
	ApplyCalls     int64         // Apply round trips
	ClaimTime      time.Duration // total time of the successful ClaimDue calls
	DenseClaims    int64         // claims followed at once by another, the stream being dense (no NextDue read between)
	NextDueReads   int64         // NextDue calls made before sleeping (an idle node's cost, with Claims)
}

func (s *Stats) snapshot() StatsSnapshot {
	return StatsSnapshot{
		Claims: s.claims.Load(), Claimed: s.claimed.Load(), ClaimErrors: s.claimErrors.Load(),
		Delivered: s.delivered.Load(), Failed: s.failed.Load(), Abandoned: s.abandoned.Load(), Deferred: s.deferred.Load(),
		Applied: s.applied.Load(), Stale: s.stale.Load(), ApplyErrors: s.applyErrors.Load(),
		AdvanceSkipped: s.advanceSkipped.Load(), ApplyCalls: s.applyCalls.Load(),
		ClaimTime: time.Duration(s.claimNanos.Load()), DenseClaims: s.denseClaims.Load(),
		NextDueReads: s.nextDueReads.Load(),
	}
}

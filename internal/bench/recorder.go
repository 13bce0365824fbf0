package bench

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// Recorder counts deliveries. Every occurrence key it has seen is kept, so a second
// delivery of one occurrence (a double fire) is counted however far apart the two are;
// the lag of every delivery (delivery time minus scheduled time) goes to a histogram.
// Safe for concurrent use: keys are spread over shards so deliveries on many
// goroutines rarely wait for one another.
type Recorder struct {
	shards    [64]shard
	seed      maphash.Seed
	delivered atomic.Int64
	doubles   atomic.Int64
	early     atomic.Int64 // delivered before their scheduled time
	last      atomic.Int64 // unix nanoseconds of the latest delivery
	floor     atomic.Int64 // unix nanoseconds; lag counts from here at the earliest
	owners    *ownerLog    // the fairness mode's, set by TrackOwners; nil: owners are not told apart
	Lag       Histogram
}

type shard struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// NewRecorder makes an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{seed: maphash.MakeSeed()}
	for i := range r.shards {
		r.shards[i].seen = map[string]struct{}{}
	}
	return r
}

// Record notes one delivery of the occurrence key of an alarm of owner, scheduled for
// `scheduled`, made at `at`. It reports whether the key had been delivered before.
func (r *Recorder) Record(key, owner string, scheduled, at time.Time) (double bool) {
	sh := &r.shards[maphash.String(r.seed, key)%uint64(len(r.shards))]
	sh.mu.Lock()
	_, double = sh.seen[key]
	if !double {
		sh.seen[key] = struct{}{}
	}
	sh.mu.Unlock()
	if double {
		r.doubles.Add(1)
	} else if r.owners != nil {
		r.owners.record(owner, scheduled, at)
	}
	lag := at.Sub(scheduled)
	if lag < 0 {
		r.early.Add(1)
	}
	if f := r.floor.Load(); f > scheduled.UnixNano() {
		lag = at.Sub(time.Unix(0, f))
	}
	r.Lag.Record(lag)
	r.delivered.Add(1)
	ns := at.UnixNano()
	for {
		l := r.last.Load()
		if ns <= l || r.last.CompareAndSwap(l, ns) {
			break
		}
	}
	return double
}

// TrackOwners makes the recorder tell the burst owner's wakes from everybody else's,
// for the fairness mode (OwnerLog). Call it before the first Record.
func (r *Recorder) TrackOwners(burstOwner string) { r.owners = &ownerLog{burst: burstOwner} }

// TracksOwners says whether TrackOwners was called: whether Record needs the owner.
func (r *Recorder) TracksOwners() bool { return r.owners != nil }

// OwnerLog is what TrackOwners has recorded so far; zero without it.
func (r *Recorder) OwnerLog() OwnerLogData {
	if r.owners == nil {
		return OwnerLogData{}
	}
	return r.owners.data()
}

// CountLagFrom makes lag count from t for wakes scheduled before it: a burn-down's
// backlog was due before the dispatchers started, and its lag is the wait since then.
func (r *Recorder) CountLagFrom(t time.Time) { r.floor.Store(t.UnixNano()) }

// Delivered counts every delivery, doubles included.
func (r *Recorder) Delivered() int64 { return r.delivered.Load() }

// Doubles counts deliveries of an occurrence key already delivered.
func (r *Recorder) Doubles() int64 { return r.doubles.Load() }

// Early counts deliveries made before their scheduled time.
func (r *Recorder) Early() int64 { return r.early.Load() }

// Last is the time of the latest delivery (zero before the first).
func (r *Recorder) Last() time.Time { return unixTime(r.last.Load()) }

// Keys returns every occurrence key seen, once each, for merging the recorders of
// several worker processes.
func (r *Recorder) Keys() []string {
	var keys []string
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for k := range sh.seen {
			keys = append(keys, k)
		}
		sh.mu.Unlock()
	}
	return keys
}

package bench

import (
	"sync"
	"time"
)

// ownerLog is what the fairness mode keeps of each first delivery, beside the
// Recorder's totals: the due and delivery time of every other owner's wake (a few
// thousand in a run: the window they are cut to is known only once the burst has
// drained), and the burst owner's count and latest delivery.
type ownerLog struct {
	burst string

	mu        sync.Mutex
	quiet     []wakeTimes
	burstN    int64
	burstLast int64 // unix nanoseconds
}

// wakeTimes is one quiet wake: when it was due and when it was delivered, in unix
// nanoseconds.
type wakeTimes struct{ Due, At int64 }

// OwnerLogData is an ownerLog as JSON, for worker processes to hand theirs over.
type OwnerLogData struct {
	// Quiet is every quiet owner's wake as [due, delivered], unix nanoseconds.
	Quiet [][2]int64 `json:"quiet,omitempty"`
	// Burst counts the burst owner's wakes; BurstLast is the latest (unix ns; 0: none).
	Burst     int64 `json:"burst"`
	BurstLast int64 `json:"burst_last"`
}

func (l *ownerLog) record(owner string, scheduled, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if owner != l.burst {
		l.quiet = append(l.quiet, wakeTimes{Due: scheduled.UnixNano(), At: at.UnixNano()})
		return
	}
	l.burstN++
	l.burstLast = max(l.burstLast, at.UnixNano())
}

// burstProgress is how many burst wakes were delivered, and when the latest was.
func (l *ownerLog) burstProgress() (int64, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.burstN, unixTime(l.burstLast)
}

// quietCount is how many other owners' wakes were delivered.
func (l *ownerLog) quietCount() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.quiet))
}

func (l *ownerLog) data() OwnerLogData {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := OwnerLogData{Quiet: make([][2]int64, len(l.quiet)), Burst: l.burstN, BurstLast: l.burstLast}
	for i, w := range l.quiet {
		d.Quiet[i] = [2]int64{w.Due, w.At}
	}
	return d
}

// merge adds another node's log: each wake was delivered by one node (a double is
// not logged twice by one recorder, and counts as a double fire anyway).
func (d *OwnerLogData) merge(o OwnerLogData) {
	d.Quiet = append(d.Quiet, o.Quiet...)
	d.Burst += o.Burst
	d.BurstLast = max(d.BurstLast, o.BurstLast)
}

// unixTime is the time of unix nanoseconds ns; zero for 0.
func unixTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

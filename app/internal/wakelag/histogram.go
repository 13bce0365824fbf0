// Package wakelag is the wake lag histogram the dispatcher fills and the heartbeat reads
// its percentiles from; internal to app's rooms.
package wakelag

import (
	"math"
	"sync/atomic"
	"time"
)

// bounds are the upper bounds of the lag histogram's buckets: 1 ms doubling to about
// 9 minutes, then everything later. Doubling buckets keep a percentile within a factor
// of two of the truth, which is what "is the cluster keeping up" needs, for 21 counters.
var bounds = func() []time.Duration {
	var b []time.Duration
	for d := time.Millisecond; d < 10*time.Minute; d *= 2 {
		b = append(b, d)
	}
	return b
}()

// Histogram counts wake lags into bounds; the last bucket holds the rest. Safe for
// concurrent use; observing is one atomic add.
type Histogram struct {
	counts [32]atomic.Int64 // len(bounds)+1 used
}

func (h *Histogram) Observe(lag time.Duration) {
	i := 0
	for i < len(bounds) && lag > bounds[i] {
		i++
	}
	h.counts[i].Add(1)
}

// Snapshot returns the cumulative counts per bucket.
func (h *Histogram) Snapshot() []int64 {
	out := make([]int64, len(bounds)+1)
	for i := range out {
		out[i] = h.counts[i].Load()
	}
	return out
}

// Quantile is the q-quantile (0 < q <= 1) of the lags counted in counts, as the
// upper bound of the bucket it falls in; 0 when counts is empty.
func Quantile(counts []int64, q float64) time.Duration {
	var total int64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			if i < len(bounds) {
				return bounds[i]
			}
			break
		}
	}
	return 2 * bounds[len(bounds)-1] // beyond the last bound: say so, roughly
}

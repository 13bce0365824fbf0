package bench

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// subBits sets the histogram's resolution: 2^subBits buckets per doubling, so a
// reported quantile is within 1/32 (3%) of the true value, from 1µs to days.
const (
	subBits    = 5
	subBuckets = 1 << subBits
	buckets    = 64 * subBuckets
)

// Histogram counts durations (at microsecond resolution) in log-linear buckets. It is
// safe for concurrent use, costs one atomic add per value, and two histograms merge by
// adding counts, which is how the lags seen by several worker processes are combined.
type Histogram struct {
	counts [buckets]atomic.Uint64
	max    atomic.Int64 // µs
	n      atomic.Uint64
}

// Record adds one duration; negative ones count as zero.
func (h *Histogram) Record(d time.Duration) {
	us := max(d.Microseconds(), 0)
	h.counts[bucketOf(uint64(us))].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if us <= m || h.max.CompareAndSwap(m, us) {
			return
		}
	}
}

// bucketOf maps v to its bucket: exact below 2^subBits, then 2^subBits buckets for each
// doubling.
func bucketOf(v uint64) int {
	if v < subBuckets {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1
	return (shift+1)*subBuckets + int(v>>shift) - subBuckets
}

// upperOf is the largest value that falls into bucket i.
func upperOf(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	shift := i/subBuckets - 1
	lower := uint64(i%subBuckets+subBuckets) << shift
	return lower + (1 << shift) - 1
}

// Count is how many durations were recorded.
func (h *Histogram) Count() uint64 { return h.n.Load() }

// Max is the largest duration recorded, exactly.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) * time.Microsecond }

// Quantile returns the duration below which a fraction q (0..1) of the values fall,
// as the upper edge of its bucket and never above Max; zero when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n) + 0.5)
	rank = min(max(rank, 1), n)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			return min(time.Duration(upperOf(i))*time.Microsecond, h.Max())
		}
	}
	return h.Max()
}

// HistogramData is a histogram as JSON, for worker processes to hand theirs over.
type HistogramData struct {
	Counts map[int]uint64 `json:"counts"` // bucket → count, non-empty buckets only
	MaxUS  int64          `json:"max_us"`
}

// Data exports the non-empty buckets.
func (h *Histogram) Data() HistogramData {
	d := HistogramData{Counts: map[int]uint64{}, MaxUS: h.max.Load()}
	for i := range h.counts {
		if c := h.counts[i].Load(); c > 0 {
			d.Counts[i] = c
		}
	}
	return d
}

// Merge adds another histogram's data.
func (h *Histogram) Merge(d HistogramData) {
	for i, c := range d.Counts {
		if i >= 0 && i < buckets {
			h.counts[i].Add(c)
			h.n.Add(c)
		}
	}
	for {
		m := h.max.Load()
		if d.MaxUS <= m || h.max.CompareAndSwap(m, d.MaxUS) {
			return
		}
	}
}

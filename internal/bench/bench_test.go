package bench

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

func TestHistogramQuantilesWithinResolution(t *testing.T) {
	var h Histogram
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5 * time.Second}, {0.99, 9900 * time.Millisecond}, {1, 10 * time.Second}} {
		got := h.Quantile(c.q)
		if diff := got - c.want; diff < -c.want/32 || diff > c.want/32 {
			t.Errorf("Quantile(%g) = %s, want %s within 1/32", c.q, got, c.want)
		}
	}
	if h.Max() != 10*time.Second || h.Count() != 10000 {
		t.Errorf("Max, Count = %s, %d; want 10s, 10000", h.Max(), h.Count())
	}
	var merged Histogram
	merged.Merge(h.Data())
	merged.Merge(h.Data())
	if merged.Count() != 20000 || merged.Quantile(0.5) != h.Quantile(0.5) || merged.Max() != h.Max() {
		t.Errorf("merged twice: count %d, p50 %s, max %s", merged.Count(), merged.Quantile(0.5), merged.Max())
	}
}

func TestBucketsAreContiguous(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<16; v++ {
		b := bucketOf(v)
		if b != prev && b != prev+1 {
			t.Fatalf("value %d jumps from bucket %d to %d", v, prev, b)
		}
		if v > upperOf(b) || (b > 0 && v <= upperOf(b-1)) {
			t.Fatalf("value %d is not within bucket %d (upper %d)", v, b, upperOf(b))
		}
		prev = b
	}
}

func TestRecorderCountsDoubleFires(t *testing.T) {
	r := NewRecorder()
	at := time.Now()
	if r.Record("a/1", Owner, at, at) || r.Record("b/1", Owner, at, at) {
		t.Fatal("first deliveries reported as doubles")
	}
	if !r.Record("a/1", Owner, at, at.Add(time.Second)) {
		t.Fatal("second delivery of a/1 not reported as a double")
	}
	if r.Delivered() != 3 || r.Doubles() != 1 || len(r.Keys()) != 2 {
		t.Errorf("delivered %d, doubles %d, keys %d; want 3, 1, 2", r.Delivered(), r.Doubles(), len(r.Keys()))
	}
}

func TestBuildMix(t *testing.T) {
	now := time.Now()
	as, err := Build(1000, Mix{CronFraction: 0.25, AtMostOnceFraction: 0.1, PayloadBytes: 100}, now, now.Add(-time.Second), now)
	if err != nil {
		t.Fatal(err)
	}
	var crons, amo int
	for i, a := range as {
		if a.Kind == domain.KindCron {
			crons++
		}
		if a.Delivery == domain.AtMostOnce {
			amo++
		}
		if len(a.Payload) != 100 || a.NextFireAt.After(now) || (i > 0 && a.NextFireAt.Before(as[i-1].NextFireAt)) {
			t.Fatalf("alarm %d: payload %d bytes, due %s; want 100 bytes, due in order by now", i, len(a.Payload), a.NextFireAt)
		}
	}
	if crons != 250 || amo != 100 {
		t.Errorf("%d cron and %d at-most-once of 1000, want 250 and 100", crons, amo)
	}
}

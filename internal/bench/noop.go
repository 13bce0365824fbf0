package bench

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// NoopWaker acknowledges every wake at once and records it: it measures the
// dispatcher and the store, with no network in the way.
type NoopWaker struct{ rec *Recorder }

// NewNoopWaker records into rec.
func NewNoopWaker(rec *Recorder) *NoopWaker { return &NoopWaker{rec: rec} }

// Wake records w as delivered now.
func (n *NoopWaker) Wake(ctx context.Context, w domain.Wake) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n.rec.Record(w.OccurrenceKey, w.Owner, w.ScheduledFor, time.Now())
	return nil
}

var _ ports.Waker = (*NoopWaker)(nil)

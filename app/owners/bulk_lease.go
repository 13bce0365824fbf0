package owners

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/ports"
)

// bulkLease is how long the owner's bulk lease runs before it is renewed, after every
// page: a node that dies mid-call frees the owner for another bulk call this soon.
const bulkLease = time.Minute

// ErrBulkRunning: the owner has a bulk call running already (on any node).
var ErrBulkRunning error = &bulkRefusal{ports.ErrBusy, "a bulk action on this owner's alarms is running; try again when it has ended"}

// bulkRefusal is a refusal that is its sentinel for errors.Is (and so for the API's
// status) but reads as its own message.
type bulkRefusal struct {
	sentinel error
	msg      string
}

func (e *bulkRefusal) Error() string { return e.msg }
func (e *bulkRefusal) Unwrap() error { return e.sentinel }

// underBulkLease runs fn holding the owner's cluster lease "bulk:<owner>", which keeps
// an owner's bulk calls (actions and redeliveries) one at a time across the cluster;
// another call meanwhile gets ErrBulkRunning. fn calls renew after each page: it
// extends the lease, or fails when it was lost. The lease is released when fn returns,
// even when the caller went away, so the owner need not wait it out.
func underBulkLease(ctx context.Context, store ports.LeaseStore, log *zap.Logger, owner string, fn func(renew func() error) error) error {
	name, holder := "bulk:"+owner, "bulk:"+app.NewAlarmID()
	if got, err := store.AcquireLease(ctx, name, holder, bulkLease); err != nil {
		return err
	} else if !got {
		return ErrBulkRunning
	}
	defer func() {
		if err := store.ReleaseLease(context.WithoutCancel(ctx), name, holder); err != nil {
			log.Warn("releasing the owner's bulk lease failed; it expires by itself", zap.String("owner", owner), zap.Error(err))
		}
	}()
	return fn(func() error {
		if got, err := store.AcquireLease(ctx, name, holder, bulkLease); err != nil || !got {
			return fmt.Errorf("owners: the bulk call on %s's alarms stopped: its lease was lost (%v)", owner, err)
		}
		return nil
	})
}

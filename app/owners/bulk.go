package owners

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/internal/bulk"
	"github.com/chronoshq/chronos/domain"
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

// Bulk applies action to every one of the owner's alarms f matches (its tags, status
// and label prefix; at least one is required), newest first, in
// pages of ports.MaxListLimit, each alarm in its own transaction: exactly the
// transition and event the single pause, resume or cancel writes. An alarm the action
// does not apply to (a once alarm to pause, an active one to resume, a finished one to
// cancel) is matched, not changed; so a repeated call changes nothing more. One bulk
// call per owner runs at a time across the cluster, under the cluster lease
// "bulk:<owner>": another gets ErrBulkRunning. A dry run takes no lease and changes
// nothing; Changed is what the call would change now.
func (s *Alarms) Bulk(ctx context.Context, owner string, f ports.ListFilter, action domain.OwnerBulkAction, dryRun bool) (domain.BulkResult, error) {
	var res domain.BulkResult
	if len(f.Tags) == 0 && f.Status == "" && f.LabelPrefix == "" {
		return res, &domain.ValidationError{Field: "filter", Message: "give at least one of tag, status, label_prefix: a bulk action never applies to every alarm"}
	}
	if f.Status != "" && !slices.Contains(domain.Statuses, f.Status) {
		return res, &domain.ValidationError{Field: "filter.status", Message: fmt.Sprintf("must be one of %v, got %q", domain.Statuses, f.Status)}
	}
	if _, err := domain.ParseOwnerBulkAction(string(action)); err != nil {
		return res, err
	}
	lf := ports.ListFilter{Scope: ports.OwnedBy(owner), Tags: f.Tags, Status: f.Status, LabelPrefix: f.LabelPrefix}
	if f.Kind != "" || !f.FailedSince.IsZero() {
		return res, &domain.ValidationError{Field: "filter", Message: "a bulk action filters by tag, status and label_prefix only"}
	}
	if dryRun {
		now := s.clock.Now()
		var err error
		res.Matched, _, err = bulk.Walk(ctx, s.store, lf, 0, func(page []domain.Alarm) error {
			for _, a := range page {
				if _, changed, err := action.Decide(a, now); err == nil && changed {
					res.Changed++
				}
			}
			return nil
		})
		return res, err
	}

	name, holder := "bulk:"+owner, "bulk:"+app.NewAlarmID()
	if got, err := s.store.AcquireLease(ctx, name, holder, bulkLease); err != nil {
		return res, err
	} else if !got {
		return res, ErrBulkRunning
	}
	defer func() {
		// Released even when the caller went away, so the owner need not wait it out.
		if err := s.store.ReleaseLease(context.WithoutCancel(ctx), name, holder); err != nil {
			s.log.Warn("releasing the owner's bulk lease failed; it expires by itself", zap.String("owner", owner), zap.Error(err))
		}
	}()
	var earliest time.Time
	var err error
	res.Matched, _, err = bulk.Walk(ctx, s.store, lf, 0, func(page []domain.Alarm) error {
		changed, err := bulk.Mutate(ctx, s.store, ports.OwnedBy(owner), page, action.Decide)
		res.Changed += len(changed)
		for _, a := range changed {
			if a.Status == domain.StatusActive && (earliest.IsZero() || a.NextFireAt.Before(earliest)) {
				earliest = a.NextFireAt
			}
		}
		if err != nil {
			return err
		}
		if got, err := s.store.AcquireLease(ctx, name, holder, bulkLease); err != nil || !got {
			return fmt.Errorf("owners: bulk %s of %s stopped after %d alarms: its lease was lost (%v)", action, owner, res.Matched, err)
		}
		return nil
	})
	if !earliest.IsZero() {
		s.hintIfDueSoon(ctx, earliest, s.clock.Now())
	}
	s.log.Info("owner bulk action", zap.String("owner", owner), zap.String("action", string(action)),
		zap.Int("matched", res.Matched), zap.Int("changed", res.Changed), zap.Error(err))
	return res, err
}

package owners

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/internal/bulk"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

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

	var earliest time.Time
	err := underBulkLease(ctx, s.store, s.log, owner, func(renew func() error) error {
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
			return renew()
		})
		return err
	})
	if errors.Is(err, ErrBulkRunning) {
		return res, err
	}
	if !earliest.IsZero() {
		s.hintIfDueSoon(ctx, earliest, s.clock.Now())
	}
	s.log.Info("owner bulk action", zap.String("owner", owner), zap.String("action", string(action)),
		zap.Int("matched", res.Matched), zap.Int("changed", res.Changed), zap.Error(err))
	return res, err
}

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

// Bulk applies action to the owner's alarms f matches (its tags, status and label
// prefix; at least one is required), newest first, from f.Cursor ("" the newest), at
// most BulkPerCall of them a call, in pages of ports.MaxListLimit, each alarm in its own
// transaction: exactly the transition and event the single pause, resume or cancel
// writes. The result's NextCursor goes on after the last alarm read ("" at the end), so
// that repeated calls walk every match once, and no call works longer than a bounded
// while. An alarm the action does not apply to (a once alarm to pause, an active one
// to resume, a finished one to cancel) is matched, not changed; so a repeated call
// changes nothing more. One bulk call per owner runs at a time across the cluster,
// under the cluster lease "bulk:<owner>": another gets ErrBulkRunning. A dry run takes
// no lease and changes nothing; Changed is what the call would change now. Every call
// takes a place in BulkGate, or is refused.
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
	lf := ports.ListFilter{Scope: ports.OwnedBy(owner), Tags: f.Tags, Status: f.Status, LabelPrefix: f.LabelPrefix, Cursor: f.Cursor}
	if f.Kind != "" || !f.FailedSince.IsZero() {
		return res, &domain.ValidationError{Field: "filter", Message: "a bulk action filters by tag, status and label_prefix only"}
	}
	if _, err := lf.After(); err != nil {
		return res, err
	}
	leave, err := s.cfg.BulkGate.enter(owner, dryRun)
	if err != nil {
		return res, err
	}
	defer leave()
	perCall := s.cfg.BulkPerCall
	if perCall <= 0 {
		perCall = DefaultBulkPerCall
	}
	if dryRun {
		now := s.clock.Now()
		res.Matched, res.NextCursor, err = bulk.WalkFrom(ctx, s.store, lf, perCall, func(page []domain.Alarm) error {
			for _, a := range page {
				if _, changed, err := action.Decide(a, now); err == nil && changed {
					res.Changed++
				}
			}
			return nil
		})
		res.More = res.NextCursor != ""
		return res, err
	}

	var earliest time.Time
	err = underBulkLease(ctx, s.store, s.log, owner, func(renew func() error) error {
		var err error
		res.Matched, res.NextCursor, err = bulk.WalkFrom(ctx, s.store, lf, perCall, func(page []domain.Alarm) error {
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
	res.More = res.NextCursor != ""
	if errors.Is(err, ErrBulkRunning) {
		return res, err
	}
	if !earliest.IsZero() {
		s.hintIfDueSoon(ctx, earliest, s.clock.Now())
	}
	s.log.Info("owner bulk action", zap.String("owner", owner), zap.String("action", string(action)),
		zap.Int("matched", res.Matched), zap.Int("changed", res.Changed), zap.Bool("more", res.More), zap.Error(err))
	return res, err
}

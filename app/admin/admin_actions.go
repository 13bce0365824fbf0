package admin

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/internal/bulk"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Retry makes a failed alarm active and due now, its failure count reset; its history
// records who did it.
func (s *Admin) Retry(ctx context.Context, id, by string) (domain.Alarm, error) {
	return s.hinted(ctx)(s.store.Mutate(ctx, ports.AnyOwner, id, retryBy(by)))
}

// hinted passes an action's result on, hinting the dispatchers when it left the alarm
// active (due now, or at its next occurrence).
func (s *Admin) hinted(ctx context.Context) func(domain.Alarm, error) (domain.Alarm, error) {
	return func(a domain.Alarm, err error) (domain.Alarm, error) {
		if err == nil && s.cfg.Hint != nil && a.Status == domain.StatusActive {
			s.cfg.Hint(ctx, a.NextFireAt)
		}
		return a, err
	}
}

// Cancel cancels any owner's alarm; cancelling a terminal alarm changes nothing.
func (s *Admin) Cancel(ctx context.Context, id, by string) (domain.Alarm, error) {
	return s.store.Mutate(ctx, ports.AnyOwner, id, cancelBy(by))
}

// Delete removes an alarm and its history. With nothing left to record it on, the log
// says who deleted what. ErrNotFound when there is no such alarm.
func (s *Admin) Delete(ctx context.Context, id, by string) (ports.Deleted, error) {
	d, err := s.store.DeleteAlarms(ctx, []string{id})
	if err != nil {
		return d, err
	}
	if d.Alarms == 0 {
		return d, ports.ErrNotFound
	}
	s.log.Info("admin deleted an alarm", zap.String("token", by), zap.String("alarm_id", id), zap.Int("events", d.Events))
	return d, nil
}

func retryBy(by string) ports.MutateFunc {
	return func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, err := domain.Retry(a, now, by)
		return t, err == nil, err
	}
}

func cancelBy(by string) ports.MutateFunc {
	return func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, changed := domain.AdminCancel(a, now, by)
		return t, changed, nil
	}
}

// Bulk applies action to up to limit (1..MaxBulk; 0 means MaxBulk) alarms matching f,
// newest first, from f.Cursor ("" the newest); the result's NextCursor goes on after the
// last one read, so that repeated calls walk every match once. f must narrow
// something: a bulk call over every alarm of the cluster is refused (field "filter"),
// since it is almost always a mistake.
func (s *Admin) Bulk(ctx context.Context, action domain.BulkAction, f ports.ListFilter, limit int, by string) (domain.BulkResult, error) {
	return s.bulk(ctx, action, f, limit, by, false)
}

// BulkDryRun is Bulk changing nothing: Matched and More are what Bulk would select now,
// and Changed how many of those its action applies to (the failed ones for a retry, the
// unfinished ones for a cancel, all for a delete). Alarms may change in between.
func (s *Admin) BulkDryRun(ctx context.Context, action domain.BulkAction, f ports.ListFilter, limit int) (domain.BulkResult, error) {
	return s.bulk(ctx, action, f, limit, "", true)
}

func (s *Admin) bulk(ctx context.Context, action domain.BulkAction, f ports.ListFilter, limit int, by string, dryRun bool) (domain.BulkResult, error) {
	var res domain.BulkResult
	if f.Scope.IsAnyOwner() && f.Status == "" && f.Kind == "" && f.LabelPrefix == "" && f.FailedSince.IsZero() && len(f.Tags) == 0 {
		return res, &domain.ValidationError{Field: "filter", Message: "give at least one of owner, status, kind, label_prefix, failed_since, tag"}
	}
	if err := ValidateAdminFilter(f); err != nil {
		return res, err
	}
	switch {
	case limit == 0:
		limit = MaxBulk
	case limit < 0 || limit > MaxBulk:
		return res, &domain.ValidationError{Field: "limit", Message: fmt.Sprintf("must be between 1 and %d, got %d", MaxBulk, limit)}
	}
	switch action {
	case domain.BulkRetry, domain.BulkCancel, domain.BulkDelete:
	default:
		return res, &domain.ValidationError{Field: "action", Message: fmt.Sprintf("must be retry, cancel or delete, got %q", action)}
	}
	var err error
	res.Matched, res.NextCursor, err = bulk.WalkFrom(ctx, s.store, f, limit, func(page []domain.Alarm) error {
		changed := len(bulkTargets(action, page))
		var err error
		if !dryRun {
			changed, err = s.applyBulk(ctx, action, page, by)
		}
		res.Changed += changed
		return err
	})
	res.More = res.NextCursor != ""
	if err != nil {
		return res, err
	}
	if dryRun {
		return res, nil
	}
	s.log.Info("admin bulk action", zap.String("token", by), zap.String("action", string(action)),
		zap.String("owner", f.Scope.Owner()), zap.String("status", string(f.Status)), zap.String("kind", string(f.Kind)),
		zap.String("label_prefix", f.LabelPrefix), zap.Time("failed_since", f.FailedSince),
		zap.Int("matched", res.Matched), zap.Int("changed", res.Changed), zap.Bool("more", res.More))
	return res, nil
}

// applyBulk does action to one page and returns how many alarms it changed.
func (s *Admin) applyBulk(ctx context.Context, action domain.BulkAction, page []domain.Alarm, by string) (int, error) {
	if action == domain.BulkDelete {
		ids := make([]string, len(page))
		for i, a := range page {
			ids[i] = a.ID
		}
		d, err := s.store.DeleteAlarms(ctx, ids)
		return d.Alarms, err
	}
	fn := cancelBy(by)
	if action == domain.BulkRetry {
		fn = retryBy(by)
	}
	changed, err := bulk.Mutate(ctx, s.store, ports.AnyOwner, bulkTargets(action, page), fn)
	return len(changed), err
}

// bulkTargets is the part of page action changes.
func bulkTargets(action domain.BulkAction, page []domain.Alarm) []domain.Alarm {
	if action == domain.BulkDelete {
		return page
	}
	var todo []domain.Alarm
	for _, a := range page {
		if (action == domain.BulkRetry && a.Status == domain.StatusFailed) || (action == domain.BulkCancel && !a.Status.Terminal()) {
			todo = append(todo, a)
		}
	}
	return todo
}

// Pause pauses any owner's cron series (the event names the token).
func (s *Admin) Pause(ctx context.Context, id, by string) (domain.Alarm, error) {
	return s.store.Mutate(ctx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.AdminPause(a, now, by)
	})
}

// Resume resumes any owner's paused series at its next occurrence.
func (s *Admin) Resume(ctx context.Context, id, by string) (domain.Alarm, error) {
	return s.hinted(ctx)(s.store.Mutate(ctx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.AdminResume(a, now, by)
	}))
}

// Trigger makes any owner's active alarm due now.
func (s *Admin) Trigger(ctx context.Context, id, by string) (domain.Alarm, error) {
	return s.hinted(ctx)(s.store.Mutate(ctx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, err := domain.AdminTrigger(a, now, by)
		return t, err == nil, err
	}))
}

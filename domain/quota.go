package domain

import (
	"errors"
	"fmt"
	"time"
)

// The limits a node puts on its callers. Each refuses a request before it does
// anything, and says when trying again may succeed (LimitError.RetryAfter).
var (
	// ErrQuotaExceeded: the create would take its owner past the most active alarms it
	// may have (CheckQuota).
	ErrQuotaExceeded = errors.New("quota exceeded")
	// ErrRateLimited: the token made more requests than its rate allows, or more of one
	// kind at once than the node takes of one owner (bulk calls).
	ErrRateLimited = errors.New("rate limited")
	// ErrNodeBusy: the node runs as much of one kind of work at once as it takes from
	// all owners together (bulk calls); another node, or the same a moment later, may
	// take the request.
	ErrNodeBusy = errors.New("node busy")
)

// LimitError is a refusal by ErrQuotaExceeded, ErrRateLimited or ErrNodeBusy (Kind,
// which Unwrap returns, so errors.Is sees it): nothing was read or written for the
// request, and a retry after RetryAfter may succeed, unless Permanent. Message is fit
// for the caller.
type LimitError struct {
	Kind       error
	Message    string
	RetryAfter time.Duration
	// Permanent: no wait makes a retry of this request succeed (it alone exceeds the
	// limit, or only the caller's own change frees room), so there is no time to retry
	// after; RetryAfter is 0 and the API sends no Retry-After.
	Permanent bool
	// Field names the request's field the limit is about, "" when none is.
	Field string
}

func (e *LimitError) Error() string { return e.Message }
func (e *LimitError) Unwrap() error { return e.Kind }

// QuotaStatuses are the statuses an alarm counts against its owner's quota in: every
// status in which it may still fire. A paused series counts (resuming it must not take
// its owner past the quota, and pausing must not be a way around it); fired, cancelled
// and failed alarms do not (they only wait for retention).
var QuotaStatuses = []Status{StatusActive, StatusPaused}

// CountsTowardQuota reports whether an alarm in status s counts against its owner's
// quota (QuotaStatuses).
func (s Status) CountsTowardQuota() bool { return s == StatusActive || s == StatusPaused }

// CheckQuota decides whether an owner that has active alarms (as counted: QuotaStatuses)
// may create adding more when it may have at most limit; limit <= 0 is no quota. The
// refusal is a *LimitError of ErrQuotaExceeded whose RetryAfter is the caller's to set,
// or, when adding alone exceeds limit (whatever active is), a Permanent one.
// The whole request is refused or none of it: a batch that would cross the quota
// creates nothing, rather than whichever of its items happen to come first.
func CheckQuota(limit, active, adding int) error {
	if limit <= 0 || active+adding <= limit {
		return nil
	}
	if adding > limit {
		return &LimitError{Kind: ErrQuotaExceeded, Permanent: true, Message: fmt.Sprintf(
			"this request alone exceeds the quota: it would create %d alarms, and the owner may have at most %d "+
				"active or paused alarms in all; no retry of it can succeed: send at most %d a request", adding, limit, limit)}
	}
	return &LimitError{Kind: ErrQuotaExceeded, Message: fmt.Sprintf(
		"the owner may have at most %d active or paused alarms and has about %d; "+
			"creating %d more would exceed that: cancel alarms or wait for some to fire", limit, active, adding)}
}

package httpapi

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func TestToAPIError(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("sqlite: get alarm: %w", err) }
	cases := []struct {
		name   string
		err    error
		status int
		code   string
		field  string
	}{
		{"validation", &domain.ValidationError{Field: "cron_expr", Message: "bad"}, 400, "invalid_argument", "cron_expr"},
		{"wrapped validation", wrap(&domain.ValidationError{Field: "cursor", Message: "bad"}), 400, "invalid_argument", "cursor"},
		{"unreadable JSON", &jsonio.Error{Field: "label", Message: "must be a string, got number"}, 400, "invalid_request", "label"},
		{"body too large", &http.MaxBytesError{Limit: 10}, 413, "payload_too_large", ""},
		{"unauthenticated", domain.ErrUnauthenticated, 401, "unauthenticated", ""},
		{"not found", wrap(ports.ErrNotFound), 404, "not_found", ""},
		{"invalid state", fmt.Errorf("%w: alarm is cancelled", domain.ErrInvalidState), 409, "invalid_state", ""},
		{"conflict", wrap(ports.ErrConflict), 409, "conflict", ""},
		{"deadline", context.DeadlineExceeded, 503, "unavailable", ""},
		{"canceled", context.Canceled, 503, "unavailable", ""},
		{"bad conn", wrap(driver.ErrBadConn), 503, "unavailable", ""},
		{"refused", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), 503, "unavailable", ""},
		{"schema version", wrap(ports.ErrSchemaVersion), 503, "unavailable", ""},
		{"storage full", fmt.Errorf("sqlite: %w: %w: database or disk is full (13)", ports.ErrUnavailable, ports.ErrStorageFull), 503, "unavailable", ""},
		{"anything else", errors.New("disk on fire at /var/lib/x"), 500, "internal", ""},
		{"own error", badRequest("label", "x"), 400, "invalid_request", "label"},
		{"quota", &domain.LimitError{Kind: domain.ErrQuotaExceeded, Message: "m"}, 429, "quota_exceeded", ""},
		{"rate", &domain.LimitError{Kind: domain.ErrRateLimited, Message: "m"}, 429, "rate_limited", ""},
		{"calendars", domain.CalendarsOverLimit(3), 429, "quota_exceeded", "name"},
		{"node busy", &domain.LimitError{Kind: domain.ErrNodeBusy, Message: "m"}, 503, "unavailable", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := toAPIError(c.err)
			if got.Status != c.status || got.Code != c.code || got.Field != c.field {
				t.Errorf("toAPIError(%v) = %d %s field %q; want %d %s field %q",
					c.err, got.Status, got.Code, got.Field, c.status, c.code, c.field)
			}
		})
	}
}

// Retry-After is whole seconds, rounded up and at least 1: a client that waits that
// long never retries early, and never retries at once.
func TestRetryAfterWholeSeconds(t *testing.T) {
	for _, c := range []struct {
		wait time.Duration
		want string
	}{
		{0, "1"}, {time.Millisecond, "1"}, {time.Second, "1"}, {time.Second + time.Millisecond, "2"},
		{1500 * time.Millisecond, "2"}, {2 * time.Second, "2"}, {61 * time.Second, "61"},
	} {
		err := &domain.LimitError{Kind: domain.ErrRateLimited, Message: "m", RetryAfter: c.wait}
		if got, ok := retryAfter(fmt.Errorf("wrapped: %w", err)); got != c.want || !ok {
			t.Errorf("RetryAfter %s: Retry-After %q (sent: %t), want %q", c.wait, got, ok, c.want)
		}
	}
	permanent := &domain.LimitError{Kind: domain.ErrQuotaExceeded, Message: "m", Permanent: true}
	if got, ok := retryAfter(fmt.Errorf("wrapped: %w", permanent)); ok {
		t.Errorf("a Permanent refusal: Retry-After %q, want none (no retry can succeed)", got)
	}
}

// A full disk is the operator's to fix, and a client that retries at once meets it
// again: the answer says so rather than the generic "unavailable".
func TestToAPIErrorSaysTheDiskIsFull(t *testing.T) {
	err := fmt.Errorf("sqlite: %w: %w: create: database or disk is full (13)", ports.ErrUnavailable, ports.ErrStorageFull)
	got := toAPIError(err)
	if got.Status != http.StatusServiceUnavailable || !strings.Contains(got.Message, "disk is full") {
		t.Errorf("toAPIError(%v) = %d %q; want 503 saying the disk is full", err, got.Status, got.Message)
	}
	if other := toAPIError(fmt.Errorf("postgres: %w: connection refused", ports.ErrUnavailable)); strings.Contains(other.Message, "full") {
		t.Errorf("an unreachable store is answered %q, which speaks of a full disk", other.Message)
	}
}

func TestToAPIErrorHidesInternalDetail(t *testing.T) {
	for _, err := range []error{
		errors.New("pq: relation alarms at db.internal:5432"),
		fmt.Errorf("postgres: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("db.internal:5432")}),
		fmt.Errorf("postgres: %w: alarms_pkey", ports.ErrConflict),
	} {
		if msg := toAPIError(err).Message; msg == err.Error() || containsAny(msg, "db.internal", "alarms") {
			t.Errorf("message %q leaks %q", msg, err)
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// A node busy with bulk calls answers 503 with its own words and the Retry-After of
// the refusal, and logs no store failure: nothing failed.
func TestWriteErrorNodeBusy(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	a := &api{log: zap.New(core)}
	rec := httptest.NewRecorder()
	err := &domain.LimitError{Kind: domain.ErrNodeBusy, Message: "this node runs 4 bulk calls already", RetryAfter: 2 * time.Second}
	a.writeError(rec, httptest.NewRequest(http.MethodPost, "/v1/alarms/bulk", nil), err)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "2" || !strings.Contains(rec.Body.String(), "4 bulk calls") {
		t.Errorf("answer %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if logs.Len() != 0 {
		t.Errorf("logged %v", logs.All())
	}
}

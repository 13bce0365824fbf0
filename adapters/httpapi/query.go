package httpapi

import (
	"net/url"
	"strconv"

	"github.com/chronoshq/chronos/domain"
)

// statusParam reads ?status=, which must be empty or a known status.
func statusParam(q url.Values) (domain.Status, error) {
	s := domain.Status(q.Get("status"))
	switch s {
	case "", domain.StatusActive, domain.StatusPaused, domain.StatusFired, domain.StatusCancelled, domain.StatusFailed:
		return s, nil
	}
	return "", invalidArgument("status", `must be one of "active", "paused", "fired", "cancelled", "failed"`)
}

// limitParam reads ?limit=, an integer in 1..max, or def when absent. A limit out of
// range is refused, not clamped: a client asking for 1000 rows and silently getting
// 500 would take the short page for the end of the list.
func limitParam(q url.Values, def, max int) (int, error) {
	raw := q.Get("limit")
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > max {
		return 0, invalidArgument("limit", "must be an integer from 1 to "+strconv.Itoa(max))
	}
	return n, nil
}

package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Attempt is one delivery attempt of an alarm, from its attempt log: an event of its
// history with what the receiver answered.
type Attempt struct {
	ID            int64     `json:"id"`   // the event's id in the history
	Type          string    `json:"type"` // what it led to: fired, retry_scheduled, failed, ...
	At            time.Time `json:"at"`
	Attempt       int       `json:"attempt"` // the attempt's number for its occurrence
	ScheduledFor  time.Time `json:"scheduled_for"`
	OccurrenceKey string    `json:"occurrence_key"`
	Node          string    `json:"node"` // the worker id of the node that made it
	// DurationMS is how long it took, in milliseconds (to the microsecond).
	DurationMS float64 `json:"duration_ms"`
	// Status is the HTTP status; nil when there was no HTTP answer.
	Status *int `json:"status"`
	// Error is why it failed; nil when it was delivered.
	Error *string `json:"error"`
	// Response is what the receiver answered; nil when there was no HTTP answer.
	Response *AttemptResponse `json:"response"`
}

// AttemptResponse is a receiver's answer as an attempt kept it.
type AttemptResponse struct {
	ContentType string `json:"content_type"`
	// Body is the kept start of the body: text when BodyEncoding is "text", else base64;
	// nil when Redacted (admin views on a node that does not show payloads).
	Body         *string `json:"body"`
	BodyEncoding string  `json:"body_encoding"`
	BodySize     int     `json:"body_size"`
	Truncated    bool    `json:"truncated"` // the body went on past what was kept
	Redacted     bool    `json:"redacted"`
	BodySHA256   string  `json:"body_sha256"` // when Redacted
}

// AttemptPage is one page of an alarm's attempts, newest first; NextCursor is "" on the
// last page.
type AttemptPage struct {
	Attempts   []Attempt `json:"attempts"`
	NextCursor string    `json:"next_cursor"`
}

// AttemptsOptions choose a page of attempts: Limit (1..100; 0: the server's 20) and
// the Cursor of the previous page ("" for the newest).
type AttemptsOptions struct {
	Limit  int
	Cursor string
}

// Attempts returns a page of the alarm's attempt log, newest first (GET
// /v1/alarms/{id}/attempts).
func (c *Client) Attempts(ctx context.Context, id string, opts AttemptsOptions) (AttemptPage, error) {
	return c.attempts(ctx, "/v1/alarms", id, opts)
}

// Attempts returns a page of any owner's alarm's attempt log, newest first, the bodies
// redacted unless the server shows payloads (GET /admin/v1/alarms/{id}/attempts).
func (a *Admin) Attempts(ctx context.Context, id string, opts AttemptsOptions) (AttemptPage, error) {
	return a.c.attempts(ctx, adminAlarms, id, opts)
}

// attempts is GET {prefix}/{id}/attempts?limit=&cursor=, for owners and admins alike.
func (c *Client) attempts(ctx context.Context, prefix, id string, opts AttemptsOptions) (AttemptPage, error) {
	path, err := alarmPath(prefix, id, "attempts")
	if err != nil {
		return AttemptPage{}, err
	}
	q := url.Values{}
	if opts.Limit != 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Cursor != "" {
		q.Set("cursor", opts.Cursor)
	}
	var out AttemptPage
	if err := c.do(ctx, call{method: http.MethodGet, path: path, query: q}, &out); err != nil {
		return AttemptPage{}, err
	}
	return out, nil
}

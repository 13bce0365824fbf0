package client

import (
	"context"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Redelivery is what one redelivery did (POST /v1/alarms/{id}/redeliver).
type Redelivery struct {
	AlarmID       string    `json:"alarm_id"`
	OccurrenceKey string    `json:"occurrence_key"`
	ScheduledFor  time.Time `json:"scheduled_for"`
	Attempt       int       `json:"attempt"`
	At            time.Time `json:"at"`
	// Delivered: the receiver acknowledged it. A refusal is no error of the call:
	// Error says what the receiver did.
	Delivered bool    `json:"delivered"`
	Error     *string `json:"error"`
}

// Redeliver sends a past occurrence of the alarm again: the one occurrenceKey names
// (as its wakes carried it), or the latest delivered when "". The receiver gets the
// occurrence's own key and the header Chronos-Redelivery: 1; nothing of the alarm
// changes but its history. An occurrence never delivered is invalid (field
// occurrence_key); an alarm never delivered is IsInvalidState; a wake its endpoint held
// back is a 429 whose Retry-After says when to try again.
func (c *Client) Redeliver(ctx context.Context, id, occurrenceKey string) (Redelivery, error) {
	path, err := alarmPath("/v1/alarms", id, "redeliver")
	if err != nil {
		return Redelivery{}, err
	}
	var body []byte
	if occurrenceKey != "" {
		if body, err = marshal(map[string]string{"occurrence_key": occurrenceKey}); err != nil {
			return Redelivery{}, err
		}
	}
	var out struct {
		Redelivery Redelivery `json:"redelivery"`
	}
	err = c.do(ctx, call{method: http.MethodPost, path: path, body: body}, &out)
	return out.Redelivery, err
}

// RedeliverFailed selects the owner's alarms to redeliver: by default every failed one.
type RedeliverFailed struct {
	Status      domain.Status     // "" is failed
	Since       time.Time         // failed at or after it (status failed only); zero: any time
	Tags        map[string]string // alarms that carry every pair
	LabelPrefix string
	Limit       int    // alarms per call; 0 is the server's default (100), at most 1000
	Cursor      string // a previous call's NextCursor, to go on
}

// RedeliverFailedResult is what one call sent.
type RedeliverFailedResult struct {
	Matched    int     `json:"matched"`
	Delivered  int     `json:"delivered"`
	Failed     int     `json:"failed"`
	HeldBack   int     `json:"held_back"`
	NextCursor *string `json:"next_cursor"` // nil: no more alarms
}

// RedeliverFailed sends the latest occurrence of each alarm req selects again, at most
// req.Limit of them (POST /v1/alarms/redeliver): the owner's dead-letter queue. Call
// again with Cursor set to NextCursor until it is nil. While another bulk call of the
// owner runs the server answers 409 (IsConflict).
func (c *Client) RedeliverFailed(ctx context.Context, req RedeliverFailed) (RedeliverFailedResult, error) {
	type filter struct {
		Status      domain.Status `json:"status,omitempty"`
		Since       *time.Time    `json:"since,omitempty"`
		Tag         []string      `json:"tag,omitempty"`
		LabelPrefix string        `json:"label_prefix,omitempty"`
	}
	w := struct {
		Filter filter `json:"filter"`
		Limit  int    `json:"limit,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}{Filter: filter{Status: req.Status, LabelPrefix: req.LabelPrefix}, Limit: req.Limit, Cursor: req.Cursor}
	if !req.Since.IsZero() {
		since := req.Since.UTC()
		w.Filter.Since = &since
	}
	if len(req.Tags) > 0 {
		w.Filter.Tag = tagList(req.Tags)
	}
	body, err := marshal(w)
	if err != nil {
		return RedeliverFailedResult{}, err
	}
	var out RedeliverFailedResult
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/alarms/redeliver", body: body}, &out)
	return out, err
}

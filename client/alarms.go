package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/chronoshq/chronos/domain"
)

// The /v1 routes act as the token's owner: every alarm they see or make is the owner's,
// and another owner's alarm is not_found.

// alarmBody is {"alarm": ..., "deduped": ...}, with "replaced" after a replace.
type alarmBody struct {
	Alarm    Alarm `json:"alarm"`
	Deduped  bool  `json:"deduped"`
	Replaced bool  `json:"replaced"`
}

// CreateAlarm creates an alarm (POST /v1/alarms). deduped is true when the request
// repeated an earlier one's IdempotencyKey: the alarm is the one that request made.
// CreateAlarmResult also tells a replace (OnDuplicate) apart.
func (c *Client) CreateAlarm(ctx context.Context, req CreateAlarm) (alarm Alarm, deduped bool, err error) {
	r, err := c.CreateAlarmResult(ctx, req)
	return r.Alarm, r.Deduped, err
}

// CreateAlarmResult is CreateAlarm with the whole answer: the alarm, and whether it was
// deduped or, with OnDuplicate replace, replaced.
func (c *Client) CreateAlarmResult(ctx context.Context, req CreateAlarm) (Created, error) {
	body, err := req.body()
	if err != nil {
		return Created{}, err
	}
	var out alarmBody
	// With an idempotency key a repeat answers the first create, or replaces the key's
	// alarm with the same request again: safe to retry.
	cl := call{method: http.MethodPost, path: "/v1/alarms", body: body, repeatable: req.IdempotencyKey != ""}
	if err := c.do(ctx, cl, &out); err != nil {
		return Created{}, err
	}
	return Created(out), nil
}

// Created is a create's answer: the alarm, and whether it was Deduped (an earlier
// request of the same IdempotencyKey made it) or Replaced (this request replaced it:
// CreateAlarm.OnDuplicate).
type Created struct {
	Alarm    Alarm
	Deduped  bool
	Replaced bool
}

// MaxBatch is the most alarms one CreateAlarms call takes (the server's limit).
const MaxBatch = 1000

// BatchResult is the outcome of one item of CreateAlarms.
type BatchResult struct {
	Alarm   Alarm
	Deduped bool
	// Replaced: the item replaced its key's alarm (CreateAlarm.OnDuplicate).
	Replaced bool
	// Err is the item's refusal, an *Error with StatusCode 0 (the call succeeded);
	// nil when the alarm was created or deduped.
	Err error
}

// CreateAlarms creates up to MaxBatch alarms in one call (POST /v1/alarms/batch). Each
// item is validated and deduplicated on its own; the results are in request order. An
// error is returned only when the call as a whole failed, in which case no alarm was
// created.
func (c *Client) CreateAlarms(ctx context.Context, reqs []CreateAlarm) ([]BatchResult, error) {
	items := make([]json.RawMessage, len(reqs))
	for i, r := range reqs {
		b, err := r.body()
		if err != nil {
			return nil, err
		}
		items[i] = b
	}
	body := batchBody(items)
	var out struct {
		Results []struct {
			Alarm    *Alarm `json:"alarm"`
			Deduped  bool   `json:"deduped"`
			Replaced bool   `json:"replaced"`
			Error    *Error `json:"error"`
		} `json:"results"`
	}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/alarms/batch", body: body}, &out); err != nil {
		return nil, err
	}
	results := make([]BatchResult, len(out.Results))
	for i, r := range out.Results {
		switch {
		case r.Error != nil:
			results[i].Err = r.Error
		case r.Alarm != nil:
			results[i] = BatchResult{Alarm: *r.Alarm, Deduped: r.Deduped, Replaced: r.Replaced}
		}
	}
	return results, nil
}

// batchBody is {"alarms": [item, ...]} with the items copied as they are: encoding/json
// would compact them, payloads included.
func batchBody(items []json.RawMessage) []byte {
	n := len(`{"alarms":[]}`)
	for _, it := range items {
		n += len(it) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"alarms":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}"...)
}

// GetAlarm returns one of the owner's alarms (GET /v1/alarms/{id}).
func (c *Client) GetAlarm(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodGet, id, "")
}

// CancelAlarm cancels an alarm for good (DELETE /v1/alarms/{id}). Cancelling a
// cancelled alarm answers it unchanged; cancelling a fired or failed one is
// invalid_state.
func (c *Client) CancelAlarm(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodDelete, id, "")
}

// PauseAlarm pauses a cron alarm until it is resumed (POST /v1/alarms/{id}/pause); a
// paused alarm is answered unchanged. A once alarm cannot be paused (invalid_state).
// PauseAlarmWith gives the pause an end and a note.
func (c *Client) PauseAlarm(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodPost, id, "pause")
}

// ResumeAlarm resumes a paused cron alarm at its next occurrence from now (POST
// /v1/alarms/{id}/resume); an active alarm is answered unchanged.
func (c *Client) ResumeAlarm(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodPost, id, "resume")
}

// TriggerAlarm makes an active alarm due now (POST /v1/alarms/{id}/trigger).
func (c *Client) TriggerAlarm(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodPost, id, "trigger")
}

// alarmAction is a request on /v1/alarms/{id}[/action] answered {"alarm": ...}.
func (c *Client) alarmAction(ctx context.Context, method, id, action string) (Alarm, error) {
	return c.alarmActionWith(ctx, method, id, action, nil)
}

// alarmActionWith is alarmAction with a request body (nil: none).
func (c *Client) alarmActionWith(ctx context.Context, method, id, action string, body []byte) (Alarm, error) {
	var more []string
	if action != "" {
		more = append(more, action)
	}
	path, err := alarmPath("/v1/alarms", id, more...)
	if err != nil {
		return Alarm{}, err
	}
	var out alarmBody
	if err := c.do(ctx, call{method: method, path: path, body: body}, &out); err != nil {
		return Alarm{}, err
	}
	return out.Alarm, nil
}

// ListAlarms selects a page of the owner's alarms. Zero values are left out.
type ListAlarms struct {
	Status domain.Status // one status, or "" for all
	// Tags keeps the alarms that carry every one of these pairs.
	Tags   map[string]string
	Limit  int    // 1..500; 0 means the server's default (100)
	Cursor string // AlarmPage.NextCursor of the previous page; "" for the first
}

func (l ListAlarms) query() url.Values {
	q := url.Values{}
	if l.Status != "" {
		q.Set("status", string(l.Status))
	}
	setTags(q, l.Tags)
	if l.Limit != 0 {
		q.Set("limit", strconv.Itoa(l.Limit))
	}
	if l.Cursor != "" {
		q.Set("cursor", l.Cursor)
	}
	return q
}

// ListAlarms returns one page of the owner's alarms, newest first (GET /v1/alarms).
func (c *Client) ListAlarms(ctx context.Context, req ListAlarms) (AlarmPage, error) {
	var out AlarmPage
	err := c.do(ctx, call{method: http.MethodGet, path: "/v1/alarms", query: req.query()}, &out)
	return out, err
}

// AllAlarms walks every page from req.Cursor on, yielding each alarm in turn, until the
// empty cursor (a short page does not end it). It stops at the first error, which it
// yields with a zero Alarm.
func (c *Client) AllAlarms(ctx context.Context, req ListAlarms) iter.Seq2[Alarm, error] {
	return func(yield func(Alarm, error) bool) {
		for {
			page, err := c.ListAlarms(ctx, req)
			if err != nil {
				yield(Alarm{}, err)
				return
			}
			for _, a := range page.Alarms {
				if !yield(a, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			req.Cursor = page.NextCursor
		}
	}
}

// AlarmEvents returns an alarm's history, oldest first (GET /v1/alarms/{id}/events).
// limit bounds the rows (1..1000); 0 means the server's default, the whole history up
// to 1000 rows.
func (c *Client) AlarmEvents(ctx context.Context, id string, limit int) ([]Event, error) {
	return c.events(ctx, "/v1/alarms", id, limit)
}

// events is GET {prefix}/{id}/events?limit=, for owners and admins alike.
func (c *Client) events(ctx context.Context, prefix, id string, limit int) ([]Event, error) {
	path, err := alarmPath(prefix, id, "events")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Events []Event `json:"events"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: path, query: q}, &out); err != nil {
		return nil, err
	}
	return out.Events, nil
}

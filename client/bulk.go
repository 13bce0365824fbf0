package client

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/chronoshq/chronos/domain"
)

// setTags adds a tag=key:value parameter per pair, in key order.
func setTags(q url.Values, tags map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		q.Add("tag", k+":"+tags[k])
	}
}

// tagList is tags as the API's filter writes them, "key:value" in key order.
func tagList(tags map[string]string) []string {
	out := []string{}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, k+":"+tags[k])
	}
	return out
}

// BulkAlarms is an action on every one of the owner's alarms a filter selects. The
// filter needs at least one of Tags, Status and LabelPrefix (else invalid, field
// "filter"), so that no call ever reaches every alarm.
type BulkAlarms struct {
	Tags        map[string]string // alarms that carry every pair
	Status      domain.Status
	LabelPrefix string
	// Action is domain.OwnerBulkPause, OwnerBulkResume or OwnerBulkCancel.
	Action domain.OwnerBulkAction
	// DryRun changes nothing: BulkResult.Changed is then how many would change.
	DryRun bool
	// Cursor goes on from a previous result's NextCursor (after an error, or from
	// BulkAlarmsPage); "" starts from the newest alarm.
	Cursor string
	// Progress, when set, is called by BulkAlarms after each call with the sums so far.
	Progress func(soFar BulkResult)
}

type ownerBulkWire struct {
	Filter struct {
		Tag         []string      `json:"tag,omitempty"`
		Status      domain.Status `json:"status,omitempty"`
		LabelPrefix string        `json:"label_prefix,omitempty"`
	} `json:"filter"`
	Action domain.OwnerBulkAction `json:"action"`
	DryRun bool                   `json:"dry_run,omitempty"`
	Cursor string                 `json:"cursor,omitempty"`
}

// BulkAlarms pauses, resumes or cancels every one of the owner's alarms req selects
// (POST /v1/alarms/bulk), each exactly as the single call would, and says how many it
// matched and changed. The server goes through a bounded number of alarms a call
// (--max-bulk-per-call), so BulkAlarms calls it from each answer's cursor in turn until
// the end, summing the answers: every alarm the filter selected when it began is
// reached once. An alarm the action does not apply to is matched, not changed, so a
// repeat changes nothing more. On an error the sums so far come back with it, their
// NextCursor where to go on (as req.Cursor). While another bulk call of the owner runs
// the server answers 409 (IsConflict); a node busy with bulk calls answers 503 or 429,
// which WithRetry waits out.
func (c *Client) BulkAlarms(ctx context.Context, req BulkAlarms) (BulkResult, error) {
	sum := BulkResult{DryRun: req.DryRun, NextCursor: req.Cursor}
	for {
		req.Cursor = sum.NextCursor
		page, err := c.BulkAlarmsPage(ctx, req)
		if err != nil {
			return sum, err
		}
		sum.Matched += page.Matched
		sum.Changed += page.Changed
		sum.More, sum.NextCursor = page.More, page.NextCursor
		if req.Progress != nil {
			req.Progress(sum)
		}
		if page.NextCursor == "" {
			return sum, nil
		}
	}
}

// BulkAlarmsPage is one call of BulkAlarms: at most the server's --max-bulk-per-call
// alarms from req.Cursor; More says whether to call again with Cursor = NextCursor.
func (c *Client) BulkAlarmsPage(ctx context.Context, req BulkAlarms) (BulkResult, error) {
	var w ownerBulkWire
	w.Filter.Tag, w.Filter.Status, w.Filter.LabelPrefix = tagList(req.Tags), req.Status, req.LabelPrefix
	if len(req.Tags) == 0 {
		w.Filter.Tag = nil
	}
	w.Action, w.DryRun, w.Cursor = req.Action, req.DryRun, req.Cursor
	body, err := marshal(w)
	if err != nil {
		return BulkResult{}, err
	}
	var out BulkResult
	// Repeatable: from the same cursor a repeat changes nothing more.
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/alarms/bulk", body: body, repeatable: true}, &out)
	return out, err
}

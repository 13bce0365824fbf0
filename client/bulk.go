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
}

type ownerBulkWire struct {
	Filter struct {
		Tag         []string      `json:"tag,omitempty"`
		Status      domain.Status `json:"status,omitempty"`
		LabelPrefix string        `json:"label_prefix,omitempty"`
	} `json:"filter"`
	Action domain.OwnerBulkAction `json:"action"`
	DryRun bool                   `json:"dry_run,omitempty"`
}

// BulkAlarms pauses, resumes or cancels every one of the owner's alarms req selects
// (POST /v1/alarms/bulk), each exactly as the single call would, and says how many it
// matched and changed (More is always false: one call covers them all). An alarm the
// action does not apply to is matched, not changed, so a repeat changes nothing more.
// While another bulk call of the owner runs the server answers 409 (IsConflict).
func (c *Client) BulkAlarms(ctx context.Context, req BulkAlarms) (BulkResult, error) {
	var w ownerBulkWire
	w.Filter.Tag, w.Filter.Status, w.Filter.LabelPrefix = tagList(req.Tags), req.Status, req.LabelPrefix
	if len(req.Tags) == 0 {
		w.Filter.Tag = nil
	}
	w.Action, w.DryRun = req.Action, req.DryRun
	body, err := marshal(w)
	if err != nil {
		return BulkResult{}, err
	}
	var out BulkResult
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/alarms/bulk", body: body}, &out)
	return out, err
}

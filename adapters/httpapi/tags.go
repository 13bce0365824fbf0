package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AlarmBulk applies an owner's action to every one of its alarms a filter selects
// (*owners.Alarms).
type AlarmBulk interface {
	// Bulk reads f's tags, status and label prefix within the owner's alarms.
	Bulk(ctx context.Context, owner string, f ports.ListFilter, action domain.OwnerBulkAction, dryRun bool) (domain.BulkResult, error)
}

// tagsValue is an alarm's tags as every view shows them: an object, {} when none.
func tagsValue(a domain.Alarm) map[string]string {
	if a.Tags == nil {
		return map[string]string{}
	}
	return a.Tags
}

// tagParams reads the list's tag conditions, ?tag=key:value (repeated: all of them).
func tagParams(q url.Values) ([]domain.TagFilter, error) {
	return domain.ParseTagFilters("tag", q["tag"])
}

// patchTags reads a patch's tags: an object replaces the alarm's whole set; null or {}
// clears it; absent leaves it.
func patchTags(raw json.RawMessage) (*map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	tags := map[string]string{}
	if string(bytes.TrimSpace(raw)) == "null" {
		return &tags, nil
	}
	if err := json.Unmarshal(raw, &tags); err != nil {
		return nil, badRequest("tags", "tags must be an object of string values, or null to clear them")
	}
	return &tags, nil
}

// bulkFilter is the filter of POST /v1/alarms/bulk.
type bulkFilter struct {
	Tag         []string `json:"tag"`
	Status      string   `json:"status"`
	LabelPrefix string   `json:"label_prefix"`
}

// ownerBulkRequest is the body of POST /v1/alarms/bulk.
type ownerBulkRequest struct {
	Filter json.RawMessage `json:"filter"` // checked as strictly as the body (decodeFilter)

	Action string `json:"action"`
	DryRun bool   `json:"dry_run"`
	// Cursor goes on from a previous call's next_cursor.
	Cursor string `json:"cursor"`
}

// ownerBulk serves POST /v1/alarms/bulk: pause, resume or cancel the owner's alarms the
// filter selects, a bounded number a call, answering {"matched", "changed", "more",
// "next_cursor", "dry_run"}; a client calls again with cursor = next_cursor while "more".
func (a *api) ownerBulk(w http.ResponseWriter, r *http.Request, owner string) {
	var req ownerBulkRequest
	if !a.readObject(w, r, &req) {
		return
	}
	filter, err := decodeBulkFilter(req.Filter)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	action, err := domain.ParseOwnerBulkAction(req.Action)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tags, err := domain.ParseTagFilters("filter.tag", filter.Tag)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := checkFilterText(ports.ListFilter{LabelPrefix: filter.LabelPrefix}); err != nil {
		a.writeError(w, r, err)
		return
	}
	f := ports.ListFilter{Tags: tags, Status: domain.Status(filter.Status), LabelPrefix: filter.LabelPrefix, Cursor: req.Cursor}
	res, err := a.bulkOwner.Bulk(r.Context(), owner, f, action, req.DryRun)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeBulkResult(w, res, req.DryRun)
}

// decodeBulkFilter reads the bulk call's filter, which it requires (decodeFilter).
func decodeBulkFilter(raw json.RawMessage) (bulkFilter, error) {
	var f bulkFilter
	if !filterGiven(raw) {
		return f, invalidArgument("filter", "is required: give at least one of tag, status, label_prefix")
	}
	return f, decodeFilter(raw, &f, "tag, status and label_prefix")
}

// filterGiven reports whether a call's filter member is there: neither left out nor
// null.
func filterGiven(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// decodeFilter reads a call's filter into dst, refusing unknown members and wrong types
// as the body's own, named "filter.<member>"; members lists them for a filter that is
// no object.
func decodeFilter(raw json.RawMessage, dst any, members string) error {
	if err := jsonio.DecodeObject(bytes.TrimSpace(raw), dst); err != nil {
		var je *jsonio.Error
		if errors.As(err, &je) && je.Field != "" {
			return badRequest("filter."+je.Field, je.Message)
		}
		return badRequest("filter", "filter must be an object of "+members)
	}
	return nil
}

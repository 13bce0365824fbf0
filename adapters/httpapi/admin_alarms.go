package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// adminListAlarms serves GET /admin/v1/alarms?owner=&status=&kind=&label_prefix=&failed_since=&tag=&limit=&cursor=.
func (a *api) adminListAlarms(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	q := r.URL.Query()
	f, err := adminFilterParams(q)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if f.Limit, err = limitParam(q, ports.DefaultListLimit, ports.MaxListLimit); err != nil {
		a.writeError(w, r, err)
		return
	}
	f.Cursor = q.Get("cursor")
	alarms, next, err := a.adminAlarms.List(r.Context(), f)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out, err := adminAlarmsBody(alarms, next, a.showPayloads)
	a.answerBody(w, r, out, err)
}

// adminFilterParams reads the filter of the admin list from the query.
// Without an owner it reaches every owner's alarms, as an admin token may.
func adminFilterParams(q url.Values) (ports.ListFilter, error) {
	status, err := statusParam(q)
	if err != nil {
		return ports.ListFilter{}, err
	}
	f := ports.ListFilter{Scope: ports.AnyOwner, Status: status, Kind: domain.Kind(q.Get("kind")), LabelPrefix: q.Get("label_prefix")}
	if owner := q.Get("owner"); owner != "" {
		f.Scope = ports.OwnedBy(owner)
	}
	if f.Tags, err = tagParams(q); err != nil {
		return f, err
	}
	if raw := q.Get("failed_since"); raw != "" {
		if f.FailedSince, err = time.Parse(time.RFC3339Nano, raw); err != nil {
			return f, invalidArgument("failed_since", "must be an RFC 3339 time, such as 2026-01-02T15:04:05Z")
		}
	}
	return f, checkFilterText(f)
}

// checkFilterText refuses NUL and invalid UTF-8 in the filter's strings: no stored
// value holds them, and PostgreSQL text cannot, so the store would fail with a 500
// instead of matching nothing.
func checkFilterText(f ports.ListFilter) error {
	for name, v := range map[string]string{"owner": f.Scope.Owner(), "kind": string(f.Kind), "label_prefix": f.LabelPrefix} {
		switch {
		case strings.ContainsRune(v, 0):
			return invalidArgument(name, "must not contain NUL characters")
		case !utf8.ValidString(v):
			return invalidArgument(name, "must be UTF-8")
		}
	}
	return nil
}

// adminAction serves a request that reads or changes one alarm by id and answers
// {"alarm": ...} in the admin view: get, retry, cancel. do is a method expression on
// the use case uses, such as operator.AlarmActions.Retry.
func adminAction[U any](a *api, uses U, do func(U, context.Context, string, string) (domain.Alarm, error)) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, tok domain.Token) {
		id, ok := a.alarmID(w, r)
		if !ok {
			return
		}
		alarm, err := do(uses, r.Context(), id, tok.ID)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		out, err := adminAlarmBody(alarm, a.showPayloads)
		a.answerBody(w, r, out, err)
	}
}

// readAlarm is Get in the shape of the by-id actions (a read names no actor).
func readAlarm(alarms operator.AlarmReader, ctx context.Context, id, _ string) (domain.Alarm, error) {
	return alarms.Get(ctx, id)
}

// adminEvents serves GET /admin/v1/alarms/{id}/events?limit=.
func (a *api) adminEvents(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	a.serveEvents(w, r, a.adminAlarms.Get, a.adminAlarms.Events)
}

// adminDelete serves DELETE /admin/v1/alarms/{id}.
func (a *api) adminDelete(w http.ResponseWriter, r *http.Request, tok domain.Token) {
	id, ok := a.alarmID(w, r)
	if !ok {
		return
	}
	d, err := a.adminActions.Delete(r.Context(), id, tok.ID)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, deletedBody(d))
}

func deletedBody(d ports.Deleted) any {
	type deleted struct {
		Alarms int `json:"alarms"`
		Events int `json:"events"`
	}
	return struct {
		Deleted deleted `json:"deleted"`
	}{deleted{d.Alarms, d.Events}}
}

// bulkRequest is the body of POST /admin/v1/alarms/retry|cancel|delete: the list's
// filter and how many alarms at most.
type bulkRequest struct {
	Owner       string   `json:"owner"`
	Status      string   `json:"status"`
	Kind        string   `json:"kind"`
	LabelPrefix string   `json:"label_prefix"`
	FailedSince *string  `json:"failed_since"`
	Tag         []string `json:"tag"`
	Limit       int      `json:"limit"`
	// Cursor goes on from a previous call's next_cursor.
	Cursor string `json:"cursor"`
	// DryRun changes nothing and answers how many alarms the action would change.
	DryRun bool `json:"dry_run"`
}

// adminBulk serves the bulk actions.
func (a *api) adminBulk(action domain.BulkAction) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, tok domain.Token) {
		var req bulkRequest
		if !a.readObject(w, r, &req) {
			return
		}
		q := url.Values{"owner": {req.Owner}, "status": {req.Status}, "kind": {req.Kind}, "label_prefix": {req.LabelPrefix}, "tag": req.Tag}
		if req.FailedSince != nil {
			q.Set("failed_since", *req.FailedSince)
		}
		f, err := adminFilterParams(q)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		f.Cursor = req.Cursor
		var res domain.BulkResult
		if req.DryRun {
			res, err = a.bulk.BulkDryRun(r.Context(), action, f, req.Limit)
		} else {
			res, err = a.bulk.Bulk(r.Context(), action, f, req.Limit, tok.ID)
		}
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		writeBulkResult(w, res, req.DryRun)
	}
}

// writeBulkResult answers a bulk call, the admin's or an owner's:
// {"matched", "changed", "more", "next_cursor", "dry_run"}, next_cursor null at the end.
func writeBulkResult(w http.ResponseWriter, res domain.BulkResult, dryRun bool) {
	var next *string
	if res.NextCursor != "" {
		next = &res.NextCursor
	}
	writeJSON(w, http.StatusOK, struct {
		Matched    int     `json:"matched"`
		Changed    int     `json:"changed"`
		More       bool    `json:"more"`
		NextCursor *string `json:"next_cursor"`
		DryRun     bool    `json:"dry_run"`
	}{res.Matched, res.Changed, res.More, next, dryRun})
}

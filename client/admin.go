package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Admin calls the /admin/v1 routes, which see every owner's alarms and the cluster
// itself. They need a token with the admin scope, or admin:read for the ones that only
// read; any other valid token gets a 403 (IsForbidden).
type Admin struct{ c *Client }

// Admin returns the client's administrative side. It shares the client's token and
// connection.
func (c *Client) Admin() *Admin { return &Admin{c: c} }

const adminAlarms = "/admin/v1/alarms"

// Overview returns the cluster at a glance (GET /admin/v1/overview).
func (a *Admin) Overview(ctx context.Context) (Overview, error) {
	var out struct {
		Overview Overview `json:"overview"`
	}
	err := a.c.do(ctx, call{method: http.MethodGet, path: "/admin/v1/overview"}, &out)
	return out.Overview, err
}

// AdminListAlarms selects alarms across owners. Zero values are left out; a filter with
// none set lists every alarm.
type AdminListAlarms struct {
	Owner       string
	Status      domain.Status
	Kind        domain.Kind
	LabelPrefix string
	// Tags keeps the alarms that carry every one of these pairs.
	Tags map[string]string
	// FailedSince keeps alarms that failed at or after it; it implies Status failed.
	FailedSince time.Time
	Limit       int    // 0 means the server's default
	Cursor      string // AdminAlarmPage.NextCursor of the previous page
}

func (l AdminListAlarms) query() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("owner", l.Owner)
	set("status", string(l.Status))
	set("kind", string(l.Kind))
	set("label_prefix", l.LabelPrefix)
	setTags(q, l.Tags)
	if !l.FailedSince.IsZero() {
		q.Set("failed_since", l.FailedSince.UTC().Format(time.RFC3339Nano))
	}
	if l.Limit != 0 {
		q.Set("limit", strconv.Itoa(l.Limit))
	}
	set("cursor", l.Cursor)
	return q
}

// Alarms returns one page of alarms across owners, newest first (GET /admin/v1/alarms).
func (a *Admin) Alarms(ctx context.Context, req AdminListAlarms) (AdminAlarmPage, error) {
	var out AdminAlarmPage
	err := a.c.do(ctx, call{method: http.MethodGet, path: adminAlarms, query: req.query()}, &out)
	return out, err
}

// Alarm returns any owner's alarm (GET /admin/v1/alarms/{id}).
func (a *Admin) Alarm(ctx context.Context, id string) (AdminAlarm, error) {
	return a.alarmAction(ctx, http.MethodGet, id, "")
}

// Events returns any alarm's history, oldest first (GET /admin/v1/alarms/{id}/events);
// limit 0 means the server's default.
func (a *Admin) Events(ctx context.Context, id string, limit int) ([]Event, error) {
	return a.c.events(ctx, adminAlarms, id, limit)
}

// Retry gives a failed alarm a new round of deliveries (POST
// /admin/v1/alarms/{id}/retry). Any other status is invalid_state (IsInvalidState).
func (a *Admin) Retry(ctx context.Context, id string) (AdminAlarm, error) {
	return a.alarmAction(ctx, http.MethodPost, id, "retry")
}

// Cancel cancels any owner's alarm (POST /admin/v1/alarms/{id}/cancel).
func (a *Admin) Cancel(ctx context.Context, id string) (AdminAlarm, error) {
	return a.alarmAction(ctx, http.MethodPost, id, "cancel")
}

// Delete removes an alarm and its history for good (DELETE /admin/v1/alarms/{id}); an
// unknown id is not_found.
func (a *Admin) Delete(ctx context.Context, id string) (Deleted, error) {
	path, err := alarmPath(adminAlarms, id)
	if err != nil {
		return Deleted{}, err
	}
	var out struct {
		Deleted Deleted `json:"deleted"`
	}
	err = a.c.do(ctx, call{method: http.MethodDelete, path: path}, &out)
	return out.Deleted, err
}

func (a *Admin) alarmAction(ctx context.Context, method, id, action string) (AdminAlarm, error) {
	var more []string
	if action != "" {
		more = append(more, action)
	}
	path, err := alarmPath(adminAlarms, id, more...)
	if err != nil {
		return AdminAlarm{}, err
	}
	var out struct {
		Alarm AdminAlarm `json:"alarm"`
	}
	err = a.c.do(ctx, call{method: method, path: path}, &out)
	return out.Alarm, err
}

// BulkFilter selects the alarms of a bulk action. The server requires at least one of
// Owner, Status, Kind, LabelPrefix and FailedSince (else invalid, field "filter"), so
// that an empty filter never touches every alarm.
type BulkFilter struct {
	Owner       string
	Status      domain.Status
	Kind        domain.Kind
	LabelPrefix string
	Tags        map[string]string // alarms that carry every pair
	FailedSince time.Time         // implies Status failed
	// Limit bounds the alarms one call acts on; 0 means the server's default and
	// maximum, 10000. BulkResult.More says whether to call again, with Cursor.
	Limit int
	// Cursor goes on from a previous call's BulkResult.NextCursor; "" starts from the
	// newest alarm.
	Cursor string
	// DryRun changes nothing: the result says how many alarms the action would change
	// (BulkResult.Changed) among those it selects.
	DryRun bool
}

type bulkWire struct {
	Owner       string        `json:"owner,omitempty"`
	Status      domain.Status `json:"status,omitempty"`
	Kind        domain.Kind   `json:"kind,omitempty"`
	LabelPrefix string        `json:"label_prefix,omitempty"`
	Tag         []string      `json:"tag,omitempty"`
	FailedSince string        `json:"failed_since,omitempty"`
	Limit       int           `json:"limit,omitempty"`
	Cursor      string        `json:"cursor,omitempty"`
	DryRun      bool          `json:"dry_run,omitempty"`
}

// BulkRetry retries the failed alarms the filter selects (POST /admin/v1/alarms/retry).
func (a *Admin) BulkRetry(ctx context.Context, f BulkFilter) (BulkResult, error) {
	return a.bulk(ctx, "retry", f)
}

// BulkCancel cancels the unfinished alarms the filter selects (POST
// /admin/v1/alarms/cancel).
func (a *Admin) BulkCancel(ctx context.Context, f BulkFilter) (BulkResult, error) {
	return a.bulk(ctx, "cancel", f)
}

// BulkDelete deletes the alarms the filter selects, with their histories (POST
// /admin/v1/alarms/delete).
func (a *Admin) BulkDelete(ctx context.Context, f BulkFilter) (BulkResult, error) {
	return a.bulk(ctx, "delete", f)
}

func (a *Admin) bulk(ctx context.Context, action string, f BulkFilter) (BulkResult, error) {
	w := bulkWire{Owner: f.Owner, Status: f.Status, Kind: f.Kind, LabelPrefix: f.LabelPrefix, Limit: f.Limit, Cursor: f.Cursor, DryRun: f.DryRun}
	if len(f.Tags) > 0 {
		w.Tag = tagList(f.Tags)
	}
	if !f.FailedSince.IsZero() {
		w.FailedSince = f.FailedSince.UTC().Format(time.RFC3339Nano)
	}
	body, err := marshal(w)
	if err != nil {
		return BulkResult{}, err
	}
	var out BulkResult
	// Repeatable: from the same cursor a repeat changes nothing more.
	err = a.c.do(ctx, call{method: http.MethodPost, path: adminAlarms + "/" + action, body: body, repeatable: true}, &out)
	return out, err
}

// Workers lists the nodes that have sent a heartbeat (GET /admin/v1/workers).
func (a *Admin) Workers(ctx context.Context) ([]Worker, error) {
	var out struct {
		Workers []Worker `json:"workers"`
	}
	err := a.c.do(ctx, call{method: http.MethodGet, path: "/admin/v1/workers"}, &out)
	return out.Workers, err
}

// Dispatch says whether dispatch is paused (GET /admin/v1/dispatch).
func (a *Admin) Dispatch(ctx context.Context) (Dispatch, error) {
	return a.dispatch(ctx, http.MethodGet, "/admin/v1/dispatch")
}

// PauseDispatch stops every node from claiming alarms until ResumeDispatch (POST
// /admin/v1/dispatch/pause). Alarms fall due meanwhile and fire, late, on resume.
func (a *Admin) PauseDispatch(ctx context.Context) (Dispatch, error) {
	return a.dispatch(ctx, http.MethodPost, "/admin/v1/dispatch/pause")
}

// ResumeDispatch lifts a pause (POST /admin/v1/dispatch/resume).
func (a *Admin) ResumeDispatch(ctx context.Context) (Dispatch, error) {
	return a.dispatch(ctx, http.MethodPost, "/admin/v1/dispatch/resume")
}

func (a *Admin) dispatch(ctx context.Context, method, path string) (Dispatch, error) {
	var out struct {
		Dispatch Dispatch `json:"dispatch"`
	}
	err := a.c.do(ctx, call{method: method, path: path}, &out)
	return out.Dispatch, err
}

// Retention returns the retention settings and the last run (GET /admin/v1/retention).
func (a *Admin) Retention(ctx context.Context) (Retention, error) {
	var out struct {
		Retention Retention `json:"retention"`
	}
	err := a.c.do(ctx, call{method: http.MethodGet, path: "/admin/v1/retention"}, &out)
	return out.Retention, err
}

// RunRetention runs retention now on the node that answers (POST
// /admin/v1/retention/run). It is a conflict (IsConflict) while another node holds the
// retention lease, and invalid (field "retention") when retention is disabled.
func (a *Admin) RunRetention(ctx context.Context) (RetentionRun, error) {
	var out struct {
		Run RetentionRun `json:"run"`
	}
	err := a.c.do(ctx, call{method: http.MethodPost, path: "/admin/v1/retention/run"}, &out)
	return out.Run, err
}

// Backup has the node write a checked copy of its SQLite store to its --backup-dir,
// under a name the node chooses (POST /admin/v1/store/backup). The request names no
// file. IsUnsupported on a PostgreSQL or MySQL store and on a node without
// --backup-dir; a conflict (IsConflict) while the node writes another backup.
func (a *Admin) Backup(ctx context.Context) (Backup, error) {
	var out struct {
		Backup Backup `json:"backup"`
	}
	err := a.c.do(ctx, call{method: http.MethodPost, path: "/admin/v1/store/backup"}, &out)
	return out.Backup, err
}

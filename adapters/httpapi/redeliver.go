package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Redeliverer sends past occurrences of an owner's alarms again (*owners.Redeliveries).
type Redeliverer interface {
	Redeliver(ctx context.Context, owner, id, key string) (domain.Redelivery, error)
	RedeliverFailed(ctx context.Context, owner string, f ports.ListFilter, limit int) (domain.BulkRedelivery, error)
}

func (a *api) redeliverRoutes(r *mux.Router) {
	if a.redeliver == nil {
		return
	}
	r.Handle("/v1/alarms/redeliver", a.owned(a.redeliverFailed)).Methods(http.MethodPost)
	r.Handle("/v1/alarms/{id}/redeliver", a.owned(a.redeliverOne)).Methods(http.MethodPost)
}

// redeliverRequest is the body of POST /v1/alarms/{id}/redeliver; it may be empty.
type redeliverRequest struct {
	OccurrenceKey string `json:"occurrence_key"`
}

// redeliveryView is one redelivery as the API answers it.
type redeliveryView struct {
	AlarmID       string    `json:"alarm_id"`
	OccurrenceKey string    `json:"occurrence_key"`
	ScheduledFor  time.Time `json:"scheduled_for"`
	Attempt       int       `json:"attempt"`
	At            time.Time `json:"at"`
	Delivered     bool      `json:"delivered"`
	Error         *string   `json:"error"`
}

// redeliverOne serves POST /v1/alarms/{id}/redeliver: 200 with what the redelivery did,
// whether the receiver took it or not (the alarm's history records it either way).
func (a *api) redeliverOne(w http.ResponseWriter, r *http.Request, owner string) {
	var req redeliverRequest
	if !a.readOptionalObject(w, r, &req) {
		return
	}
	got, err := a.redeliver.Redeliver(r.Context(), owner, mux.Vars(r)["id"], req.OccurrenceKey)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	v := redeliveryView{AlarmID: got.AlarmID, OccurrenceKey: got.OccurrenceKey, ScheduledFor: got.ScheduledFor.UTC(),
		Attempt: got.Attempt, At: got.At.UTC(), Delivered: got.Delivered}
	if !got.Delivered {
		v.Error = &got.Error
	}
	writeJSON(w, http.StatusOK, map[string]any{"redelivery": v})
}

// redeliverFilter is the filter of POST /v1/alarms/redeliver.
type redeliverFilter struct {
	Status      string   `json:"status"`
	Since       *string  `json:"since"`
	Tag         []string `json:"tag"`
	LabelPrefix string   `json:"label_prefix"`
}

// redeliverFailedRequest is the body of POST /v1/alarms/redeliver.
type redeliverFailedRequest struct {
	Filter json.RawMessage `json:"filter"`
	Limit  int             `json:"limit"`
	Cursor string          `json:"cursor"`
}

// redeliverFailed serves POST /v1/alarms/redeliver: the latest occurrence of each of the
// owner's failed alarms (or those the filter selects) sent again, at most limit per
// call; {"matched", "delivered", "failed", "held_back", "next_cursor"}.
func (a *api) redeliverFailed(w http.ResponseWriter, r *http.Request, owner string) {
	var req redeliverFailedRequest
	if !a.readObject(w, r, &req) {
		return
	}
	var filter redeliverFilter
	if filterGiven(req.Filter) {
		if err := decodeFilter(req.Filter, &filter, "status, since, tag and label_prefix"); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	f := ports.ListFilter{Status: domain.Status(filter.Status), LabelPrefix: filter.LabelPrefix, Cursor: req.Cursor}
	var err error
	if f.FailedSince, err = optionalTime("filter.since", filter.Since); err != nil {
		a.writeError(w, r, err)
		return
	}
	if f.Tags, err = domain.ParseTagFilters("filter.tag", filter.Tag); err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := checkFilterText(f); err != nil {
		a.writeError(w, r, err)
		return
	}
	res, err := a.redeliver.RedeliverFailed(r.Context(), owner, f, req.Limit)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var next *string
	if res.NextCursor != "" {
		next = &res.NextCursor
	}
	writeJSON(w, http.StatusOK, map[string]any{"matched": res.Matched, "delivered": res.Delivered, "failed": res.Failed,
		"held_back": res.HeldBack, "next_cursor": next})
}

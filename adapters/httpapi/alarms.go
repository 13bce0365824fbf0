package httpapi

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/pathvar"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AlarmReader reads the owner's alarms and their history (*owners.Alarms).
type AlarmReader interface {
	Get(ctx context.Context, owner, id string) (domain.Alarm, error)
	List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error)
	Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error)
	Attempts(ctx context.Context, owner, id string, limit int, cursor string) ([]domain.Event, string, error)
}

// AlarmActions are the owner's changes to the state of one of its alarms (*owners.Alarms).
type AlarmActions interface {
	Cancel(ctx context.Context, owner, id string) (domain.Alarm, error)
	PauseWith(ctx context.Context, owner, id string, spec domain.PauseSpec) (domain.Alarm, error)
	Resume(ctx context.Context, owner, id string) (domain.Alarm, error)
	Trigger(ctx context.Context, owner, id string) (domain.Alarm, error)
	SkipNext(ctx context.Context, owner, id string) (domain.Alarm, error)
}

// alarmID returns the {id} path variable; when it cannot name any alarm (too long, not
// UTF-8, control characters) it answers 404 without asking the store, which might
// choke on the bytes (PostgreSQL refuses NUL in text), and returns false.
func (a *api) alarmID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := mux.Vars(r)["id"]
	if !pathvar.Valid(id) {
		a.writeError(w, r, errNoAlarm)
		return "", false
	}
	return id, true
}

// errNoAlarm answers an id that cannot exist like one that does not.
var errNoAlarm = toAPIError(ports.ErrNotFound)

// ownerAction is action for a use case method taken as a method expression, such as
// AlarmActions.Cancel, on the use case uses.
func ownerAction[U any](a *api, uses U, do func(U, context.Context, string, string) (domain.Alarm, error)) ownedHandler {
	return a.action(func(ctx context.Context, owner, id string) (domain.Alarm, error) {
		return do(uses, ctx, owner, id)
	})
}

// action serves a request that reads or changes one alarm and answers {"alarm": ...}:
// get, cancel (DELETE), pause, resume, trigger, update. Owner actions that change
// nothing (pausing a paused alarm, cancelling a cancelled one) answer the alarm as it is.
func (a *api) action(do func(ctx context.Context, owner, id string) (domain.Alarm, error)) ownedHandler {
	return func(w http.ResponseWriter, r *http.Request, owner string) {
		id, ok := a.alarmID(w, r)
		if !ok {
			return
		}
		alarm, err := do(r.Context(), owner, id)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		out, err := alarmBody(alarm, nil)
		a.answerBody(w, r, out, err)
	}
}

// pauseRequest is the optional body of POST /v1/alarms/{id}/pause.
type pauseRequest struct {
	Until *string `json:"until"`
	Note  string  `json:"note"`
}

// pauseAlarm serves POST /v1/alarms/{id}/pause: without a body, a plain pause; with
// {"until", "note"}, a pause that ends by itself and says why.
func (a *api) pauseAlarm(w http.ResponseWriter, r *http.Request, owner string) {
	var req pauseRequest
	if !a.readOptionalObject(w, r, &req) {
		return
	}
	until, err := optionalTime("until", req.Until)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.action(func(ctx context.Context, owner, id string) (domain.Alarm, error) {
		return a.actions.PauseWith(ctx, owner, id, domain.PauseSpec{Until: until, Note: req.Note})
	})(w, r, owner)
}

// listAlarms serves GET /v1/alarms?status=&tag=&label_prefix=&limit=&cursor=; every
// filter given applies (AND).
func (a *api) listAlarms(w http.ResponseWriter, r *http.Request, owner string) {
	q := r.URL.Query()
	status, err := statusParam(q)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	limit, err := limitParam(q, ports.DefaultListLimit, ports.MaxListLimit)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tags, err := tagParams(q)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	f := ports.ListFilter{Status: status, Tags: tags, LabelPrefix: q.Get("label_prefix"), Limit: limit, Cursor: q.Get("cursor")}
	if err := checkFilterText(f); err != nil {
		a.writeError(w, r, err)
		return
	}
	alarms, next, err := a.reader.List(r.Context(), owner, f)
	if err != nil {
		a.writeError(w, r, err) // a bad cursor is the store's ValidationError on "cursor"
		return
	}
	out, err := alarmsBody(alarms, next)
	a.answerBody(w, r, out, err)
}

// listEvents serves GET /v1/alarms/{id}/events?limit=.
func (a *api) listEvents(w http.ResponseWriter, r *http.Request, owner string) {
	a.serveEvents(w, r, func(ctx context.Context, id string) (domain.Alarm, error) {
		return a.reader.Get(ctx, owner, id)
	}, func(ctx context.Context, id string, limit int) ([]domain.Event, error) {
		return a.reader.Events(ctx, owner, id, limit)
	})
}

// serveEvents answers a request for the events of alarm {id} (?limit=) with what events
// reads: the owner's API and the admin API alike. get reads the alarm (historyOf).
func (a *api) serveEvents(w http.ResponseWriter, r *http.Request, get func(ctx context.Context, id string) (domain.Alarm, error),
	events func(ctx context.Context, id string, limit int) ([]domain.Event, error)) {
	// Events come oldest first with no cursor, so the default is the most the store
	// returns: a client gets the whole history unless it asks for less.
	h, ok := a.historyOf(w, r, get, ports.MaxEventsLimit, ports.MaxEventsLimit)
	if !ok {
		return
	}
	list, err := events(r.Context(), h.id, h.limit)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": views(list, func(e domain.Event) eventView { return newEventView(e, h.series) })})
}

// history is what a request for an alarm's events or attempts reads before them.
type history struct {
	id    string // the alarm's, from the path
	limit int    // ?limit=
	// series is the id the wakes of the alarm carried in their occurrence keys
	// (domain.Alarm.SeriesID): its own, or a backfill's series'. Its history and
	// attempt log show the same keys, so a receiver can match them.
	series string
}

// historyOf reads alarm {id}, ?limit= (def when absent, at most max) and, with get,
// the alarm's series; on an error it answers it and returns false.
func (a *api) historyOf(w http.ResponseWriter, r *http.Request, get func(ctx context.Context, id string) (domain.Alarm, error),
	def, max int) (history, bool) {
	id, ok := a.alarmID(w, r)
	if !ok {
		return history{}, false
	}
	limit, err := limitParam(r.URL.Query(), def, max)
	if err != nil {
		a.writeError(w, r, err)
		return history{}, false
	}
	al, err := get(r.Context(), id)
	if err != nil {
		a.writeError(w, r, err)
		return history{}, false
	}
	return history{id: id, limit: limit, series: al.SeriesID()}, true
}

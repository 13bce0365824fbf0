package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

type alarmData struct {
	A                 domain.Alarm
	Redacted          bool
	Payload           string // shown only when not redacted
	PayloadSize       int
	PayloadSHA256     string
	WakeMessageSize   int
	WakeMessageSHA256 string
	Upcoming          []time.Time // a cron alarm's next occurrences
	UpcomingNote      string
	Events            []domain.Event
	Attempts          []attemptRow // the newest page of its attempt log
	MoreAttempts      bool         // older attempts than the page (the API pages through them)
	Actions           []string     // the buttons that apply to it now
}

// upcomingCount is how many future occurrences the alarm page lists.
const upcomingCount = 10

// alarmPage serves one alarm: every field, its next occurrences and its history.
func (u *UI) alarmPage(w http.ResponseWriter, r *http.Request, v viewer) {
	id := mux.Vars(r)["id"]
	a, err := u.alarms.Get(r.Context(), id)
	if u.failed(w, r, err, "No alarm has the id "+id+".") {
		return
	}
	events, err := u.alarms.Events(r.Context(), id, ports.MaxEventsLimit)
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	attempts, next, err := u.alarms.Attempts(r.Context(), id, attemptsShown, "")
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	payload := []byte(a.Payload)
	if len(payload) == 0 {
		payload = []byte("null")
	}
	d := alarmData{
		A: a, Redacted: !u.opts.ShowPayloads, Events: events,
		PayloadSize: len(payload), PayloadSHA256: sum(payload),
		WakeMessageSize: len(a.WakeMessage), WakeMessageSHA256: sum([]byte(a.WakeMessage)),
		Actions: actionsFor(a), MoreAttempts: next != "",
	}
	for _, e := range attempts {
		d.Attempts = append(d.Attempts, newAttemptRow(e, u.opts.ShowPayloads))
	}
	if u.opts.ShowPayloads {
		d.Payload = string(payload)
	}
	d.Upcoming, d.UpcomingNote = upcoming(a, time.Now())
	u.render(w, r, http.StatusOK, "alarm", page{Title: "Alarm " + a.ID, Nav: "alarms", Viewer: &v, Data: d})
}

// attemptsShown is how many of its newest attempts the alarm page lists.
const attemptsShown = 20

// attemptRow is one attempt as the alarm page shows it: the answer's body as text when
// it is UTF-8, its size and hash when it is redacted (as the payload is) or binary.
type attemptRow struct {
	E          domain.Event
	DurationMS string
	Status     int // 0: no HTTP answer
	Type       string
	Body       string
	BodyShown  bool
	BodySize   int
	BodySHA256 string
	Truncated  bool
}

func newAttemptRow(e domain.Event, show bool) attemptRow {
	r := e.Receipt
	row := attemptRow{E: e, DurationMS: strconv.FormatFloat(float64(r.Duration.Microseconds())/1000, 'f', 1, 64),
		Status: r.Status, Type: r.ContentType, BodySize: len(r.Body), BodySHA256: sum(r.Body), Truncated: r.Truncated}
	if show && utf8.Valid(r.Body) {
		row.Body, row.BodyShown = string(r.Body), true
	}
	return row
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// actionsFor lists the actions that apply to the alarm as it is.
func actionsFor(a domain.Alarm) []string {
	var out []string
	switch a.Status {
	case domain.StatusFailed:
		out = append(out, "retry")
	case domain.StatusActive:
		out = append(out, "trigger")
		if a.Kind == domain.KindCron {
			out = append(out, "pause")
		}
	case domain.StatusPaused:
		out = append(out, "resume")
	}
	if !a.Status.Terminal() {
		out = append(out, "cancel")
	}
	return append(out, "delete")
}

// upcoming is when a cron alarm's next occurrences fall due (domain.Upcoming: its
// bounds, remaining fires and jitter honoured); for a series paused without an end, the
// ones it would have if resumed now.
func upcoming(a domain.Alarm, now time.Time) ([]time.Time, string) {
	if a.Kind != domain.KindCron {
		return nil, ""
	}
	note := ""
	switch {
	case a.Status == domain.StatusActive:
	case a.Status == domain.StatusPaused && !a.PausedUntil.IsZero():
		note = "Paused until " + a.PausedUntil.Format(time.RFC3339) + ": these are the occurrences from then."
	case a.Status == domain.StatusPaused:
		t, _, err := domain.Resume(a, now)
		if err != nil {
			return nil, "Paused; it could not resume now: " + err.Error()
		}
		a = t.ApplyTo(a)
		note = "Paused: these are the occurrences it would have if resumed now."
	default:
		return nil, "The series is " + string(a.Status) + ": nothing is coming."
	}
	list := domain.Upcoming(a, now, upcomingCount)
	if len(list) == 0 {
		return nil, "The schedule has no occurrence left, or no longer parses."
	}
	out := make([]time.Time, len(list))
	for i, o := range list {
		out[i] = o.DueAt
	}
	return out, note
}

// alarmAction serves the alarm page's buttons.
func (u *UI) alarmAction(w http.ResponseWriter, r *http.Request, v viewer) {
	vars := mux.Vars(r)
	id, action := vars["id"], vars["action"]
	back := Prefix + "alarms/" + url.PathEscape(id)
	switch action {
	case "cancel":
		if !u.confirmed(w, r, v, "Cancel alarm", askData{Question: "Cancel alarm " + id + "? It will never fire again.", Button: "Yes, cancel it", Back: back}) {
			return
		}
	case "delete":
		if !u.confirmed(w, r, v, "Delete alarm", askData{Question: "Delete alarm " + id + " and its history for good?", Button: "Yes, delete it", Back: back}) {
			return
		}
	}
	var err error
	switch action {
	case "retry":
		_, err = u.actions.Retry(r.Context(), id, v.Token.ID)
	case "cancel":
		_, err = u.actions.Cancel(r.Context(), id, v.Token.ID)
	case "pause":
		_, err = u.ownerActions.Pause(r.Context(), id, v.Token.ID)
	case "resume":
		_, err = u.ownerActions.Resume(r.Context(), id, v.Token.ID)
	case "trigger":
		_, err = u.ownerActions.Trigger(r.Context(), id, v.Token.ID)
	case "delete":
		if _, err = u.actions.Delete(r.Context(), id, v.Token.ID); err == nil {
			u.redirectWithFlash(w, r, Prefix+"alarms", "Alarm "+id+" deleted, with its history.")
			return
		}
	}
	switch {
	case err == nil:
		u.redirectWithFlash(w, r, back, "Done: "+action+".")
	case errors.Is(err, ports.ErrNotFound):
		u.fail(w, r, http.StatusNotFound, "No alarm has the id "+id+".")
	case errors.Is(err, domain.ErrInvalidState):
		u.redirectWithFlash(w, r, back, "Not done: "+err.Error())
	default:
		u.storeFailed(w, r, err)
	}
}

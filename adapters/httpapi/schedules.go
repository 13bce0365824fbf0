package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// SchedulePlanner answers what a schedule will do, and backfills a series' missed
// occurrences (*owners.Alarms).
type SchedulePlanner interface {
	// Upcoming returns the alarm with its next n occurrences (domain.Upcoming).
	Upcoming(ctx context.Context, owner, id string, n int) (domain.Alarm, []domain.Occurrence, error)
	// Preview lists a schedule's next n occurrences after from (now when zero).
	Preview(expr, tz string, from time.Time, n int) ([]time.Time, error)
	// PreviewExcluding is Preview leaving out the days the owner's calendars named by
	// names exclude.
	PreviewExcluding(ctx context.Context, owner, expr, tz string, names []string, from time.Time, n int) ([]time.Time, error)
	// Backfill creates the alarm delivering the series' occurrences in [from, to]
	// (domain.Backfill), or returns the one a repeated request made (deduped).
	Backfill(ctx context.Context, owner, id string, from, to time.Time) (b domain.Alarm, count int, deduped bool, err error)
}

// defaultUpcoming is how many occurrences a preview lists when count is not given.
const defaultUpcoming = 10

// upcoming serves GET /v1/alarms/{id}/upcoming?count=: the alarm's next occurrences,
// honouring its pause, bounds and jitter.
func (a *api) upcoming(w http.ResponseWriter, r *http.Request, owner string) {
	id, ok := a.alarmID(w, r)
	if !ok {
		return
	}
	n, err := countParam(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	alarm, list, err := a.schedules.Upcoming(r.Context(), owner, id, n)
	a.answer(w, r, err, "occurrences", views(list, func(o domain.Occurrence) occurrenceView {
		return occurrenceView{ScheduledFor: jsonio.Time(o.ScheduledFor), DueAt: jsonio.Time(o.DueAt),
			OccurrenceKey: domain.OccurrenceKey(alarm.SeriesID(), o.ScheduledFor)}
	}))
}

// occurrenceView is one upcoming wake of an alarm.
type occurrenceView struct {
	ScheduledFor  jsonio.Time `json:"scheduled_for"`
	DueAt         jsonio.Time `json:"due_at"`
	OccurrenceKey string      `json:"occurrence_key"`
}

func countParam(r *http.Request) (int, error) {
	raw := r.URL.Query().Get("count")
	if raw == "" {
		return defaultUpcoming, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > domain.MaxUpcoming {
		return 0, invalidArgument("count", "must be an integer from 1 to "+strconv.Itoa(domain.MaxUpcoming))
	}
	return n, nil
}

// previewRequest is the body of POST /v1/schedules/preview.
type previewRequest struct {
	CronExpr string  `json:"cron_expr"`
	Timezone string  `json:"timezone"`
	From     *string `json:"from"`
	Count    *int    `json:"count"`
	// ExcludeCalendars names the owner's calendars to leave out, as a series would.
	ExcludeCalendars []string `json:"exclude_calendars"`
}

// preview serves POST /v1/schedules/preview: a schedule's next occurrences, validated
// as a create would validate it, without creating anything.
func (a *api) preview(w http.ResponseWriter, r *http.Request, owner string) {
	var req previewRequest
	if !a.readObject(w, r, &req) {
		return
	}
	from, err := optionalTime("from", req.From)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	n := defaultUpcoming
	if req.Count != nil {
		n = *req.Count
	}
	var list []time.Time
	if len(req.ExcludeCalendars) > 0 {
		list, err = a.schedules.PreviewExcluding(r.Context(), owner, req.CronExpr, req.Timezone, req.ExcludeCalendars, from, n)
	} else {
		list, err = a.schedules.Preview(req.CronExpr, req.Timezone, from, n)
	}
	type at struct {
		ScheduledFor jsonio.Time `json:"scheduled_for"`
	}
	a.answer(w, r, err, "occurrences", views(list, func(t time.Time) at { return at{jsonio.Time(t)} }))
}

// backfillRequest is the body of POST /v1/alarms/{id}/backfill.
type backfillRequest struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// window is the request's from and to, each zero when absent.
func (req backfillRequest) window() (from, to time.Time, err error) {
	if from, err = optionalTime("from", req.From); err == nil {
		to, err = optionalTime("to", req.To)
	}
	return from, to, err
}

// backfill serves POST /v1/alarms/{id}/backfill: 201 with the backfill alarm and how
// many occurrences it will deliver, or 200 with the one a repeated request made.
func (a *api) backfill(w http.ResponseWriter, r *http.Request, owner string) {
	id, ok := a.alarmID(w, r)
	if !ok {
		return
	}
	var req backfillRequest
	if !a.readObject(w, r, &req) {
		return
	}
	from, to, err := req.window()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	b, count, deduped, err := a.schedules.Backfill(r.Context(), owner, id, from, to)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	buf.WriteString(`{"alarm":`)
	if err := appendAlarm(&buf, b); err != nil {
		a.writeError(w, r, err)
		return
	}
	limit := b.Series.Limit()
	fmt.Fprintf(&buf, `,"deduped":%t,"occurrences":%d,"truncated":%t}`+"\n", deduped, min(count, limit), count > limit)
	status := http.StatusOK
	if !deduped {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/alarms/"+url.PathEscape(b.ID))
	}
	writeBody(w, status, buf.Bytes())
}

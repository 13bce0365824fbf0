package httpapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"unicode/utf8"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// attemptView is one delivery attempt as the API shows it (docs/api.md, "Attempt log").
type attemptView struct {
	ID            int64         `json:"id"`
	Type          string        `json:"type"`
	At            jsonio.Time   `json:"at"`
	Attempt       int           `json:"attempt"`
	ScheduledFor  jsonio.Time   `json:"scheduled_for"`
	OccurrenceKey string        `json:"occurrence_key"` // "" when it concerns no occurrence
	Node          string        `json:"node"`
	DurationMS    float64       `json:"duration_ms"`
	Status        *int          `json:"status"` // null: no HTTP answer
	Error         *string       `json:"error"`  // null: delivered
	Response      *responseView `json:"response"`
}

// responseView is what the receiver answered. Body is the kept excerpt as text when it
// is UTF-8, else base64 (BodyEncoding says which); in the admin view, unless payloads
// are shown, it is null and Redacted, with its size and SHA-256 as for payloads.
type responseView struct {
	ContentType  string  `json:"content_type"`
	Body         *string `json:"body"`
	BodyEncoding string  `json:"body_encoding"` // "text" or "base64"
	BodySize     int     `json:"body_size"`
	Truncated    bool    `json:"truncated"` // the answer went on past the excerpt
	Redacted     bool    `json:"redacted,omitempty"`
	BodySHA256   string  `json:"body_sha256,omitempty"`
}

// newAttemptView is e, an attempt of the alarm whose wakes carry series (its id, or a
// backfill's series'), with the answer's body unless showBody is false.
func newAttemptView(e domain.Event, series string, showBody bool) attemptView {
	v := attemptView{ID: e.ID, Type: string(e.Type), At: jsonio.Time(e.At), Attempt: e.Attempt,
		ScheduledFor: jsonio.Time(e.ScheduledFor), Node: e.Worker}
	if !e.ScheduledFor.IsZero() {
		v.OccurrenceKey = domain.OccurrenceKey(series, e.ScheduledFor)
	}
	if e.Message != "" {
		v.Error = &e.Message
	}
	r := e.Receipt
	if r == nil {
		return v
	}
	v.DurationMS = float64(r.Duration.Microseconds()) / 1000
	if r.Status == 0 {
		return v
	}
	v.Status = &r.Status
	rv := &responseView{ContentType: r.ContentType, BodyEncoding: "text", BodySize: len(r.Body), Truncated: r.Truncated}
	if !utf8.Valid(r.Body) {
		rv.BodyEncoding = "base64"
	}
	switch {
	case !showBody:
		rv.Redacted, rv.BodySHA256 = true, sha256Hex(r.Body)
	case rv.BodyEncoding == "base64":
		b := base64.StdEncoding.EncodeToString(r.Body)
		rv.Body = &b
	default:
		b := string(r.Body)
		rv.Body = &b
	}
	v.Response = rv
	return v
}

// listAttempts serves GET /v1/alarms/{id}/attempts?limit=&cursor=: the owner sees its
// own alarms' answers in full.
func (a *api) listAttempts(w http.ResponseWriter, r *http.Request, owner string) {
	a.serveAttempts(w, r, true, func(ctx context.Context, id string) (domain.Alarm, error) {
		return a.reader.Get(ctx, owner, id)
	}, func(ctx context.Context, id string, limit int, cursor string) ([]domain.Event, string, error) {
		return a.reader.Attempts(ctx, owner, id, limit, cursor)
	})
}

// adminAttempts serves GET /admin/v1/alarms/{id}/attempts?limit=&cursor=: bodies are
// the owners' data, redacted as payloads are unless the node shows payloads.
func (a *api) adminAttempts(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	a.serveAttempts(w, r, a.showPayloads, a.adminAlarms.Get, a.adminAlarms.Attempts)
}

// serveAttempts answers {"attempts": [...], "next_cursor": "..."} for alarm {id}; get
// reads the alarm (historyOf).
func (a *api) serveAttempts(w http.ResponseWriter, r *http.Request, showBody bool, get func(ctx context.Context, id string) (domain.Alarm, error),
	attempts func(ctx context.Context, id string, limit int, cursor string) ([]domain.Event, string, error)) {
	h, ok := a.historyOf(w, r, get, ports.DefaultAttemptsLimit, ports.MaxAttemptsLimit)
	if !ok {
		return
	}
	list, next, err := attempts(r.Context(), h.id, h.limit, r.URL.Query().Get("cursor"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]attemptView, len(list))
	for i, e := range list {
		views[i] = newAttemptView(e, h.series, showBody)
	}
	writeJSON(w, http.StatusOK, struct {
		Attempts   []attemptView `json:"attempts"`
		NextCursor string        `json:"next_cursor"`
	}{views, next})
}

package webui

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// CalendarLister lists an owner's exclusion calendars by name (*owners.Calendars).
type CalendarLister interface {
	List(ctx context.Context, owner string) ([]domain.Calendar, error)
}

type calendarsData struct {
	Owner     string // the filter; calendars are listed one owner at a time
	Calendars []domain.Calendar
}

// calendarsPage lists one owner's calendars (?owner=): what each excludes, in which
// timezone. The series naming one show it on their own page.
func (u *UI) calendarsPage(w http.ResponseWriter, r *http.Request, v viewer) {
	d := calendarsData{Owner: strings.TrimSpace(r.URL.Query().Get("owner"))}
	if d.Owner != "" {
		cs, err := u.calendars.List(r.Context(), d.Owner)
		if errors.Is(err, domain.ErrRateLimited) {
			u.fail(w, r, http.StatusTooManyRequests, "This owner's calendars are being read by another request; reload in a moment.")
			return
		}
		if err != nil {
			u.storeFailed(w, r, err)
			return
		}
		d.Calendars = cs
	}
	u.render(w, r, http.StatusOK, "calendars", page{Title: "Calendars", Nav: "calendars", Viewer: &v, Data: d})
}

package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// maxBulk is the most alarms one bulk action touches, as in the admin API.
const maxBulk = 10_000

type confirmData struct {
	Action  string
	Scope   string // "selected" or "filter"
	IDs     []string
	Filter  filter
	Count   int  // alarms it will touch
	More    bool // more match than one action takes
	Back    string
	Warning string
}

// bulk serves the bulk form of the alarms page: the first post shows how many alarms
// the action will touch and asks to confirm; the confirmed post does it.
func (u *UI) bulk(w http.ResponseWriter, r *http.Request, v viewer) {
	action := domain.BulkAction(r.PostFormValue("action"))
	switch action {
	case domain.BulkRetry, domain.BulkCancel, domain.BulkDelete:
	default:
		u.fail(w, r, http.StatusBadRequest, "Choose retry, cancel or delete.")
		return
	}
	f := readFilter(r.PostForm)
	back := Prefix + "alarms?" + f.query().Encode()
	ids := r.PostForm["ids"]
	scope := r.PostFormValue("scope")
	if scope != "filter" {
		scope = "selected"
	}
	af, err := f.admin()
	if err != nil {
		u.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if scope == "selected" && len(ids) == 0 {
		u.redirectWithFlash(w, r, back, "Nothing selected: tick the alarms first, or act on the whole filter.")
		return
	}
	if scope == "filter" && f.empty() {
		u.fail(w, r, http.StatusBadRequest, "Acting on every alarm of the cluster is refused: narrow the filter first.")
		return
	}
	if len(ids) > maxBulk {
		u.fail(w, r, http.StatusBadRequest, fmt.Sprintf("At most %d alarms at once.", maxBulk))
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		d := confirmData{Action: string(action), Scope: scope, IDs: ids, Filter: f, Back: back}
		if scope == "selected" {
			d.Count = len(ids)
		} else {
			// The dry run walks the filter's pages as the action will (short ones too).
			res, err := u.bulkActions.BulkDryRun(r.Context(), action, af, maxBulk)
			if err != nil {
				u.storeFailed(w, r, err)
				return
			}
			d.Count, d.More = res.Matched, res.More
		}
		if action == domain.BulkRetry {
			d.Warning = "Only failed alarms among them are retried."
		} else if action == domain.BulkCancel {
			d.Warning = "Alarms already finished are left as they are."
		}
		u.render(w, r, http.StatusOK, "confirm", page{Title: "Confirm", Nav: "alarms", Viewer: &v, Data: d})
		return
	}
	var changed, matched int
	var more bool
	if scope == "selected" {
		matched = len(ids)
		changed, err = u.actOnEach(r.Context(), action, ids, v.Token.ID)
	} else {
		var res domain.BulkResult
		res, err = u.bulkActions.Bulk(r.Context(), action, af, maxBulk, v.Token.ID)
		changed, matched, more = res.Changed, res.Matched, res.More
	}
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	msg := fmt.Sprintf("%s: %d of %d alarms changed.", action, changed, matched)
	if more {
		msg += " More match the filter: run it again."
	}
	u.redirectWithFlash(w, r, back, msg)
}

// actOnEach does action to each id and counts the alarms it changed; an alarm gone or
// no longer in a state the action applies to is skipped.
func (u *UI) actOnEach(ctx context.Context, action domain.BulkAction, ids []string, by string) (int, error) {
	changed := 0
	for _, id := range ids {
		var err error
		switch action {
		case domain.BulkRetry:
			_, err = u.actions.Retry(ctx, id, by)
		case domain.BulkCancel:
			var before, after domain.Alarm
			if before, err = u.alarms.Get(ctx, id); err == nil && !before.Status.Terminal() {
				after, err = u.actions.Cancel(ctx, id, by)
				if err == nil && after.Status != before.Status {
					changed++
				}
			}
			if err == nil || skippable(err) {
				continue
			}
			return changed, err
		case domain.BulkDelete:
			_, err = u.actions.Delete(ctx, id, by)
		}
		switch {
		case err == nil:
			changed++
		case skippable(err):
		default:
			return changed, err
		}
	}
	return changed, nil
}

func skippable(err error) bool {
	return errors.Is(err, ports.ErrNotFound) || errors.Is(err, domain.ErrInvalidState)
}

// isInvalid reports a validation error and its message for the viewer.
func isInvalid(err error, msg *string) bool {
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		*msg = ve.Field + ": " + ve.Message
		return true
	}
	return false
}

func isBusy(err error) bool { return errors.Is(err, ports.ErrBusy) }

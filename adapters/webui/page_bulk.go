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
	Cursor  string // the filter's walk goes on after the alarms an earlier action went through
	Done    string // what that earlier action did
	Count   int    // alarms it will touch
	More    bool   // more match than one action takes
	Back    string
	Warning string
}

// bulk serves the bulk form of the alarms page: the first post shows how many alarms
// the action will touch and asks to confirm; the confirmed post does it. An action on
// a filter goes through at most maxBulk alarms; when more may match, it asks to go on
// with the next ones, from where it stopped (the cursor), rather than from the start.
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
	af.Cursor = r.PostFormValue("cursor")
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
	d := confirmData{Action: string(action), Scope: scope, IDs: ids, Filter: f, Back: back}
	if r.PostFormValue("confirm") != "yes" {
		u.confirm(w, r, v, d, af)
		return
	}
	var changed, matched int
	var next string
	if scope == "selected" {
		matched = len(ids)
		changed, err = u.actOnEach(r.Context(), action, ids, v.Token.ID)
	} else {
		var res domain.BulkResult
		res, err = u.bulkActions.Bulk(r.Context(), action, af, maxBulk, v.Token.ID)
		changed, matched, next = res.Changed, res.Matched, res.NextCursor
	}
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	msg := fmt.Sprintf("%s: %d of %d alarms changed.", action, changed, matched)
	if next != "" {
		af.Cursor, d.Cursor, d.Done = next, next, msg
		u.confirm(w, r, v, d, af)
		return
	}
	u.redirectWithFlash(w, r, back, msg)
}

// confirm asks to confirm d: how many alarms the action will touch (on a filter, what
// a dry run from af's cursor selects), or, once an earlier action went through all of
// them (a dry run from its cursor selects none), says what it did.
func (u *UI) confirm(w http.ResponseWriter, r *http.Request, v viewer, d confirmData, af ports.ListFilter) {
	if d.Scope == "selected" {
		d.Count = len(d.IDs)
	} else {
		// The dry run walks the filter's pages as the action will (short ones too).
		res, err := u.bulkActions.BulkDryRun(r.Context(), domain.BulkAction(d.Action), af, maxBulk)
		if err != nil {
			u.storeFailed(w, r, err)
			return
		}
		d.Count, d.More = res.Matched, res.More
		if d.Count == 0 && d.Done != "" {
			u.redirectWithFlash(w, r, d.Back, d.Done)
			return
		}
	}
	switch domain.BulkAction(d.Action) {
	case domain.BulkRetry:
		d.Warning = "Only failed alarms among them are retried."
	case domain.BulkCancel:
		d.Warning = "Alarms already finished are left as they are."
	}
	u.render(w, r, http.StatusOK, "confirm", page{Title: "Confirm", Nav: "alarms", Viewer: &v, Data: d})
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

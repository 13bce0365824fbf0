package webui

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// filter is the alarms page's filter as the form has it.
type filter struct {
	Owner, Status, Kind, Label, FailedSince string
	Tags                                    []string // each key:value (tagFilter)
}

func readFilter(v url.Values) filter {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	return filter{Owner: get("owner"), Status: get("status"), Kind: get("kind"), Label: get("label"), FailedSince: get("failed_since"),
		Tags: formTags(v)}
}

// admin turns the form's filter into the store's, or says which field is wrong. Without
// an owner it reaches every owner's alarms.
func (f filter) admin() (ports.ListFilter, error) {
	af := ports.ListFilter{Scope: ports.AnyOwner, Status: domain.Status(f.Status), Kind: domain.Kind(f.Kind), LabelPrefix: f.Label}
	if f.Owner != "" {
		af.Scope = ports.OwnedBy(f.Owner)
	}
	if f.Status != "" && !slices.Contains(domain.Statuses, af.Status) {
		return af, fmt.Errorf("status %q is not one of %v", f.Status, domain.Statuses)
	}
	if f.Kind != "" && af.Kind != domain.KindOnce && af.Kind != domain.KindCron {
		return af, fmt.Errorf("kind %q is not once or cron", f.Kind)
	}
	if f.FailedSince != "" {
		t, err := parseLocalTime(f.FailedSince)
		if err != nil {
			return af, fmt.Errorf("failed since %q is not a time (use 2026-11-23T09:00 or RFC 3339)", f.FailedSince)
		}
		af.FailedSince = t
	}
	tags, err := domain.ParseTagFilters("tag", f.Tags)
	if err != nil {
		return af, fmt.Errorf("tag: %s", strings.TrimPrefix(err.Error(), "tag: "))
	}
	af.Tags = tags
	if strings.ContainsRune(f.Owner+f.Label, 0) {
		return af, fmt.Errorf("the filter contains a NUL character")
	}
	if !utf8.ValidString(f.Owner + f.Label) {
		return af, fmt.Errorf("the filter is not UTF-8")
	}
	return af, nil
}

// empty reports whether no field narrows anything.
func (f filter) empty() bool {
	return f.Owner == "" && f.Status == "" && f.Kind == "" && f.Label == "" && f.FailedSince == "" && len(f.Tags) == 0
}

// query is the filter as URL parameters, for links that keep it.
func (f filter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"owner": f.Owner, "status": f.Status, "kind": f.Kind, "label": f.Label, "failed_since": f.FailedSince} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for _, t := range f.Tags {
		q.Add("tag", t)
	}
	return q
}

// parseLocalTime reads RFC 3339, or the "2006-01-02T15:04" of an HTML datetime-local
// input, taken as UTC.
func parseLocalTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.ParseInLocation("2006-01-02T15:04", s, time.UTC)
}

type alarmsData struct {
	Filter   filter
	Statuses []domain.Status
	Alarms   []domain.Alarm
	Next     string // URL of the next page; "" on the last
	First    string // URL of the first page when this is not it
	Error    string
	Query    string // the filter as a query string, for the bulk form
}

// alarmsPage serves the table across owners: filters, search by id, keyset pages.
func (u *UI) alarmsPage(w http.ResponseWriter, r *http.Request, v viewer) {
	q := r.URL.Query()
	if id := strings.TrimSpace(q.Get("id")); id != "" {
		http.Redirect(w, r, Prefix+"alarms/"+url.PathEscape(id), http.StatusSeeOther)
		return
	}
	f := readFilter(q)
	d := alarmsData{Filter: f, Statuses: domain.Statuses, Query: f.query().Encode()}
	af, err := f.admin()
	if err != nil {
		d.Error = err.Error()
		u.render(w, r, http.StatusBadRequest, "alarms", page{Title: "Alarms", Nav: "alarms", Viewer: &v, Data: d})
		return
	}
	af.Limit = 50
	af.Cursor = q.Get("cursor")
	alarms, next, err := u.alarms.List(r.Context(), af)
	if err != nil {
		var msg string
		if isInvalid(err, &msg) {
			d.Error = msg
			u.render(w, r, http.StatusBadRequest, "alarms", page{Title: "Alarms", Nav: "alarms", Viewer: &v, Data: d})
			return
		}
		u.storeFailed(w, r, err)
		return
	}
	d.Alarms = alarms
	if next != "" {
		nq := f.query()
		nq.Set("cursor", next)
		d.Next = Prefix + "alarms?" + nq.Encode()
	}
	if af.Cursor != "" {
		d.First = Prefix + "alarms?" + f.query().Encode()
	}
	u.render(w, r, http.StatusOK, "alarms", page{Title: "Alarms", Nav: "alarms", Viewer: &v, Data: d})
}

// formTags is the filter's tags: every non-empty tag field of the form, as given.
func formTags(v url.Values) []string {
	var tags []string
	for _, t := range v["tag"] {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

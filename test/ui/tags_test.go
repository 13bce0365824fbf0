package ui

import (
	"net/http"
	"strings"
	"testing"
)

// The dashboard shows an alarm's tags on the list and its page, and filters the list by
// tag (every one given); a malformed tag is a 400 naming it.
func TestTagsOnTheDashboard(t *testing.T) {
	e := newEnv(t)
	tagged := e.create(`{"kind":"once","delay_seconds":3600,"label":"tagged","tags":{"customer":"42","plan":"pro"}}`)
	other := e.create(`{"kind":"once","delay_seconds":3600,"label":"other","tags":{"customer":"7"}}`)
	c := e.signIn(e.admin)

	all := e.get(c, "/ui/alarms")
	if !strings.Contains(all.body, `<span class="tag">customer:42</span>`) {
		t.Errorf("the list shows no tags")
	}
	f := e.get(c, "/ui/alarms?tag=customer:42&tag=plan:pro")
	if !strings.Contains(f.body, tagged) || strings.Contains(f.body, other) || !strings.Contains(f.body, `value="plan:pro"`) {
		t.Error("tag=customer:42&tag=plan:pro does not filter, or the form lost it")
	}
	if r := e.get(c, "/ui/alarms?tag=nocolon"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "tag") {
		t.Errorf("a malformed tag: %d", r.status)
	}
	if p := e.get(c, "/ui/alarms/"+tagged); !strings.Contains(p.body, "<dt>Tags</dt>") || !strings.Contains(p.body, "plan:pro") {
		t.Error("the alarm page shows no tags")
	}
}

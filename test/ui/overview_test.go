package ui

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// The overview lists the endpoints the live nodes report queuing, escaped, and says so
// when none is; its live fragment shows the same.
func TestOverviewShowsEndpointsQueuing(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.reader)
	if r := e.get(c, "/ui/"); r.status != http.StatusOK || !strings.Contains(r.body, "No endpoint is queuing.") {
		t.Errorf("the overview with no node: %d, want %q in\n%s", r.status, "No endpoint is queuing.", r.body)
	}
	stats := domain.WorkerStats{Endpoints: []domain.EndpointLoad{
		{Owner: "shop", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 120},
		{Owner: "<b>evil</b>", Name: "hook", InFlight: 2, HeldBack: 3},
	}}
	if err := e.store.RegisterWorker(e.ctx, domain.Worker{ID: "node-1", Host: "h1", PID: 7, Stats: stats}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/ui/", "/ui/fragments/overview"} {
		r := e.get(c, p)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", p, r.status)
		}
		for _, want := range []string{
			"<h2>Endpoints queuing</h2>",
			"<th>Owner</th><th>Endpoint</th><th>Queued</th><th>In flight</th><th>Held back</th>",
			`<tr><td>shop</td><td><code>billing</code></td><td class="num">4</td><td class="num">8</td><td class="num">120</td></tr>`,
			`<tr><td>&lt;b&gt;evil&lt;/b&gt;</td><td><code>hook</code></td><td class="num">0</td><td class="num">2</td><td class="num">3</td></tr>`,
		} {
			if !strings.Contains(r.body, want) {
				t.Errorf("GET %s: want %s in\n%s", p, want, r.body)
			}
		}
		if strings.Contains(r.body, "<b>evil</b>") || strings.Contains(r.body, "No endpoint is queuing.") {
			t.Errorf("GET %s: an owner unescaped, or the table and the empty line both:\n%s", p, r.body)
		}
	}
}

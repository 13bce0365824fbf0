package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// `chronos alarm attempts ID` prints the attempts newest first, a row each with the
// status, duration, node, error and the answer's start, and the next page's cursor.
func TestCLIAlarmAttempts(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	id := value(t, s.mustCLI(t, "alarm", "create", "--in", "0s", "--max-failures", "5"), "id")
	for i, o := range []domain.Outcome{
		{Error: "HTTP 503", Receipt: &domain.Receipt{Duration: 1500 * time.Microsecond, Status: 503, Body: []byte("busy\nnow")}},
		{Delivered: true, Receipt: &domain.Receipt{Duration: 2 * time.Millisecond, Status: 204}},
	} {
		time.Sleep(5 * time.Millisecond) // the retry is due a millisecond after the failure
		c, err := s.store.ClaimDue(t.Context(), ports.ClaimParams{Worker: "node-1", Lease: time.Minute, Batch: 1})
		if err != nil || len(c.Alarms) != 1 {
			t.Fatalf("claim %d: %v, %d alarms", i, err, len(c.Alarms))
		}
		p := domain.Policy{Backoff: domain.Backoff{Base: time.Millisecond, Cap: time.Millisecond}}
		if _, err := s.store.Apply(t.Context(), []domain.Transition{domain.Decide(domain.Begin(c.Alarms[0], c.Now, p), o, c.Now, p)}); err != nil {
			t.Fatal(err)
		}
	}
	out := s.mustCLI(t, "alarm", "attempts", id)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], " fired ") || !strings.Contains(lines[1], " 204 ") || !strings.Contains(lines[1], "2.0ms") ||
		!strings.Contains(lines[2], " 503 ") || !strings.Contains(lines[2], "HTTP 503") || !strings.Contains(lines[2], "busy now") || !strings.Contains(lines[2], "node-1") {
		t.Errorf("attempts table:\n%s", out)
	}
	first := s.mustCLI(t, "alarm", "attempts", id, "--limit", "1")
	m := strings.SplitN(first, "next page: --cursor ", 2)
	if len(m) != 2 || !strings.Contains(m[0], " fired ") {
		t.Fatalf("attempts --limit 1:\n%s", first)
	}
	if rest := s.mustCLI(t, "alarm", "attempts", id, "--limit", "1", "--cursor", strings.TrimSpace(m[1])); !strings.Contains(rest, " retry_scheduled ") || strings.Contains(rest, "next page") {
		t.Errorf("the second page:\n%s", rest)
	}
}

package cli

import (
	"strings"
	"testing"
	"time"
)

// --on-duplicate replace debounces a key: the repeat says replaced and moves the alarm,
// capped by --max-wait after the first create.
func TestCLIAlarmCreateReplace(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	args := []string{"alarm", "create", "--idempotency-key", "conv-9", "--on-duplicate", "replace", "--max-wait", "1h"}
	first := s.mustCLI(t, append(args, "--in", "10m", "--payload", `{"n":1}`)...)
	again := s.mustCLI(t, append(args, "--in", "3h", "--payload", `{"n":2}`)...)
	if value(t, first, "id") != value(t, again, "id") || value(t, again, "replaced") != "true" ||
		value(t, again, "deduped") != "false" || value(t, again, "payload") != `{"n":2}` || strings.Contains(first, "replaced") {
		t.Fatalf("first:\n%s\nagain:\n%s", first, again)
	}
	created, err1 := time.Parse(time.RFC3339Nano, value(t, first, "created_at"))
	fireAt, err2 := time.Parse(time.RFC3339Nano, value(t, again, "fire_at"))
	if err1 != nil || err2 != nil || fireAt.Sub(created) > time.Hour || fireAt.Sub(created) < time.Hour-time.Second {
		t.Errorf("fire_at %s, created_at %s: want the max wait, 1h, apart (%v %v)", fireAt, created, err1, err2)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alarm", "create", "--in", "1m", "--idempotency-key", "k", "--on-duplicate", "merge"}, "on_duplicate"},
		{[]string{"alarm", "create", "--in", "1m", "--idempotency-key", "k", "--max-wait", "1h"}, "max_wait_seconds"},
		{[]string{"alarm", "create", "--in", "1m", "--idempotency-key", "k", "--on-duplicate", "replace", "--max-wait", "0s"}, "--max-wait must be positive"},
	} {
		if _, _, err := s.cli(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %s", tc.args, err, tc.want)
		}
	}
}

package sqlite

import (
	"testing"
)

// Migration 00011 voids the old dashboard cookies: the signing key and the signed-out
// session ids leave chronos_state, every other named value stays. Rolled back and
// applied again, the same.
func TestMigrateSessionsDropsTheCookieKey(t *testing.T) {
	ctx := t.Context()
	path, db, p := migratedFile(t, 10)
	for _, when := range []string{"upgraded", "down and up again"} {
		for _, name := range []string{"ui-session-key", "ui-signed-out/0123abcd", "dispatch"} {
			if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO chronos_state (name, value, updated_at) VALUES (?, 'v', 0)`, name); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Open(ctx, "sqlite://"+path, Options{Migrate: true})
		if err != nil {
			t.Fatalf("%s: Open (migrating to the latest): %v", when, err)
		}
		for name, want := range map[string]bool{"ui-session-key": false, "ui-signed-out/0123abcd": false, "dispatch": true} {
			if _, ok, err := s.GetState(ctx, name); err != nil || ok != want {
				t.Errorf("%s: state %s present %t (%v), want %t", when, name, ok, err, want)
			}
		}
		_ = s.Close()
		if _, err := p.DownTo(ctx, 10); err != nil {
			t.Fatalf("migrate down to 8: %v", err)
		}
	}
}

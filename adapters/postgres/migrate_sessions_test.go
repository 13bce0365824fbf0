package postgres

import (
	"context"
	"testing"
)

// Migration 00011 voids the old dashboard cookies: the signing key and the signed-out
// session ids leave chronos_state, every other named value stays. Rolled back and
// applied again, the same.
func TestMigrationSessionsDropsTheCookieKey(t *testing.T) {
	ctx := context.Background()
	u, db, p := migratedSchema(t, 10)
	for _, when := range []string{"upgraded", "down and up again"} {
		for _, name := range []string{"ui-session-key", "ui-signed-out/0123abcd", "dispatch"} {
			if _, err := db.ExecContext(ctx, `INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, 'v', now())
				ON CONFLICT (name) DO NOTHING`, name); err != nil {
				t.Fatal(err)
			}
		}
		s := openStore(t, u, Options{Migrate: true})
		for name, want := range map[string]bool{"ui-session-key": false, "ui-signed-out/0123abcd": false, "dispatch": true} {
			if _, ok, err := s.GetState(ctx, name); err != nil || ok != want {
				t.Errorf("%s: state %s present %t (%v), want %t", when, name, ok, err, want)
			}
		}
		s.Close()
		if _, err := p.DownTo(ctx, 10); err != nil {
			t.Fatalf("migrate down to 9: %v", err)
		}
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"testing"
)

// The connection settings the adapter's durability and concurrency rely on are in
// effect on both pools, and the reader pool cannot write.
func TestPragmas(t *testing.T) {
	ctx := t.Context()
	s := openTemp(t, nil)

	want := map[string]string{
		"journal_mode": "wal",
		"synchronous":  "1", // NORMAL
		"foreign_keys": "1",
		"busy_timeout": "5000",
	}
	for pool, db := range map[string]*sql.DB{"writer": s.writer, "reader": s.reader} {
		for name, w := range want {
			if got := pragma(ctx, t, db, name); got != w {
				t.Errorf("%s: PRAGMA %s = %q, want %q", pool, name, got, w)
			}
		}
	}
	if got := pragma(ctx, t, s.reader, "query_only"); got != "1" {
		t.Errorf("reader: PRAGMA query_only = %q, want 1", got)
	}
	if _, err := s.reader.ExecContext(ctx, `DELETE FROM workers`); err == nil {
		t.Error("a write through the reader pool succeeded; want it refused")
	}
}

func pragma(ctx context.Context, t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

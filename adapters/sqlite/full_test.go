package sqlite

import (
	"errors"
	"github.com/chronoshq/chronos/test/contract"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A write that finds no room (SQLITE_FULL) is ErrStorageFull and ErrUnavailable, writes
// nothing, and the same write succeeds once there is room. max_page_count stands in for
// the full filesystem here: SQLite answers both with SQLITE_FULL. test/e2e fills a real
// one (TestSQLiteDiskFull).
func TestFullDatabaseIsStorageFull(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s := openTemp(t, fixedClock{now})
	alarm := func(id string) domain.Alarm {
		at := now.Add(time.Hour)
		// A payload larger than a page, so the insert needs new pages.
		payload := []byte(`"` + strings.Repeat("x", 32*1024) + `"`)
		a, err := domain.NewAlarm(id, domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at, Payload: payload}, now, domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if _, _, err := contract.CreateOne(ctx, s, alarm("before")); err != nil {
		t.Fatalf("Create before the limit: %v", err)
	}

	// The writer is one connection kept for the store's life, so the limit holds for
	// every write that follows.
	pages := pragma(ctx, t, s.writer, "page_count")
	if _, err := s.writer.ExecContext(ctx, "PRAGMA max_page_count = "+pages); err != nil {
		t.Fatal(err)
	}
	_, _, err := contract.CreateOne(ctx, s, alarm("refused"))
	if !errors.Is(err, ports.ErrStorageFull) || !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("Create on a full database: %v; want ErrStorageFull and ErrUnavailable", err)
	}
	if _, err := s.Get(ctx, ports.OwnedBy("o"), "refused"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("Get of the refused alarm: %v; want ErrNotFound (nothing written)", err)
	}
	if res := pragma(ctx, t, s.writer, "integrity_check"); res != "ok" {
		t.Errorf("integrity_check after SQLITE_FULL: %s", res)
	}

	if _, err := s.writer.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := contract.CreateOne(ctx, s, alarm("refused")); err != nil {
		t.Fatalf("the same Create once there is room: %v", err)
	}
	for _, id := range []string{"before", "refused"} {
		if _, err := s.Get(ctx, ports.OwnedBy("o"), id); err != nil {
			t.Errorf("Get(%s): %v", id, err)
		}
	}
}

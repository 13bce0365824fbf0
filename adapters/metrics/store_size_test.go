package metrics_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/metrics"
)

type diskSizer struct {
	n   int64
	err error
}

func (d *diskSizer) DiskBytes() (int64, error) { return d.n, d.err }

// chronos_store_bytes reads the store's size at every scrape; a size that cannot be
// read leaves that metric out and the rest served.
func TestStoreBytesIsReadAtEachScrape(t *testing.T) {
	m := metrics.New(metrics.Options{})
	size := &diskSizer{n: 4096}
	m.WatchStoreSize(size)
	if got := gauge(t, scrape(t, m), "chronos_store_bytes", none); got != 4096 {
		t.Errorf("chronos_store_bytes = %g, want 4096", got)
	}
	size.n = 1 << 20
	fams := scrape(t, m)
	if got := gauge(t, fams, "chronos_store_bytes", none); got != 1<<20 {
		t.Errorf("chronos_store_bytes = %g after the store grew, want %d", got, 1<<20)
	}
	if fams["chronos_store_bytes"].GetHelp() == "" {
		t.Error("chronos_store_bytes has no help")
	}

	size.err = errors.New("stat chronos.db: permission denied")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("a scrape with the size unreadable: %d", rec.Code)
	}
	if body := rec.Body.String(); strings.Contains(body, "chronos_store_bytes ") || !strings.Contains(body, "chronos_wakes_total") {
		t.Errorf("with the size unreadable, want chronos_store_bytes left out and the rest served:\n%.400s", body)
	}
}

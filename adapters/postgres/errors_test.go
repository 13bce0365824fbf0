package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chronoshq/chronos/ports"
)

// A server out of disk space (disk_full) is ErrStorageFull and ErrUnavailable, so the
// API answers 503 saying so and the dispatcher retries; other server errors are not.
func TestMapErrorDiskFull(t *testing.T) {
	full := fmt.Errorf("insert alarm: %w", &pgconn.PgError{Code: "53100", Message: `could not extend file "base/16384/16385": No space left on device`})
	if got := mapError(full); !errors.Is(got, ports.ErrStorageFull) || !errors.Is(got, ports.ErrUnavailable) {
		t.Errorf("mapError(disk_full) = %v; want ErrStorageFull and ErrUnavailable", got)
	}
	syntax := &pgconn.PgError{Code: "42601", Message: "syntax error"}
	if got := mapError(syntax); errors.Is(got, ports.ErrStorageFull) || errors.Is(got, ports.ErrUnavailable) {
		t.Errorf("mapError(syntax error) = %v; want neither ErrStorageFull nor ErrUnavailable", got)
	}
}

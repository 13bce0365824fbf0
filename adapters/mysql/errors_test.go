package mysql

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/ports"
)

// A server out of disk space (ER_DISK_FULL, or InnoDB unable to extend a tablespace:
// ER_RECORD_FILE_FULL) is ErrStorageFull and ErrUnavailable, so the API answers 503
// saying so and the dispatcher retries; other server errors are not.
func TestMapErrorDiskFull(t *testing.T) {
	for _, full := range []*mysql.MySQLError{
		{Number: erDiskFull, Message: "Disk full (./chronos/alarms.ibd); waiting for someone to free some space..."},
		{Number: erRecordFileFull, Message: "The table 'alarms' is full"},
	} {
		if got := mapError(fmt.Errorf("insert alarm: %w", full)); !errors.Is(got, ports.ErrStorageFull) || !errors.Is(got, ports.ErrUnavailable) {
			t.Errorf("mapError(%d) = %v; want ErrStorageFull and ErrUnavailable", full.Number, got)
		}
	}
	syntax := &mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax"}
	if got := mapError(syntax); errors.Is(got, ports.ErrStorageFull) || errors.Is(got, ports.ErrUnavailable) {
		t.Errorf("mapError(1064) = %v; want neither ErrStorageFull nor ErrUnavailable", got)
	}
}

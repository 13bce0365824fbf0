package sqlstore

import (
	"fmt"

	"github.com/chronoshq/chronos/ports"
)

// SchemaVersion refuses a database schema at version found when this binary expects
// want: nil when they are equal, else ports.ErrSchemaVersion saying what to run.
func SchemaVersion(name string, found, want int64) error {
	switch {
	case found < want:
		return fmt.Errorf("%s: %w: database schema is at version %d, this binary expects %d; run chronos migrate",
			name, ports.ErrSchemaVersion, found, want)
	case found > want:
		return fmt.Errorf("%s: %w: database schema is at version %d, newer than the %d this binary expects; upgrade chronos",
			name, ports.ErrSchemaVersion, found, want)
	}
	return nil
}

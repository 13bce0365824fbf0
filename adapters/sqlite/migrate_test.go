package sqlite_test

import (
	"sync"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
)

// Several processes starting at once on a new file (each with its own connections, as
// here) all come up migrated: one applies the schema, the others find it done.
func TestMigrateConcurrently(t *testing.T) {
	url := tempURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sqlite.Migrate(t.Context(), url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate %d: %v", i, err)
		}
	}
	s, err := sqlite.Open(t.Context(), url, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after concurrent migrations: %v", err)
	}
	s.Close()
}

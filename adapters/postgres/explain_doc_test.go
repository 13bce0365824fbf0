package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
)

// TestClaimExplainForDocs produces the EXPLAIN output quoted in docs/postgres.md: the
// claim's generic plan, executed, on 10,000 due alarms behind 1,000 and behind
// 1,000,000 not yet due, plus the naive "id IN (SELECT ...)" form for comparison. It
// loads a million rows into a throwaway database, so it runs only when asked:
//
//	CHRONOS_PG_EXPLAIN_DOC=/tmp/claim-explain.txt go test ./adapters/postgres/ \
//	    -run TestClaimExplainForDocs -count=1 -timeout 30m
func TestClaimExplainForDocs(t *testing.T) {
	out := storetest.Asked(t, "CHRONOS_PG_EXPLAIN_DOC", "<output file>", "regenerate docs/postgres.md's EXPLAIN output (loads 1,000,000 rows)")
	var report strings.Builder
	var version string
	if err := adminPool(t).QueryRow(context.Background(), `SELECT version()`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&report, "%s\n", version)

	naive := strings.Replace(claimSQL, "WHERE ctid = ANY(ARRAY(\n\tSELECT ctid FROM", "WHERE id IN (\n\tSELECT id FROM", 1)
	naive = strings.Replace(naive, "\n))\nRETURNING", "\n)\nRETURNING", 1)
	if naive == claimSQL || strings.Contains(naive, "ARRAY(") {
		t.Fatal("could not derive the naive form from claimSQL")
	}
	const options = "ANALYZE, BUFFERS"
	for _, notDue := range []int{1000, 1_000_000} {
		s := openStore(t, newDatabase(t), Options{Migrate: true})
		loadAlarms(t, s, notDue, 10_000, 0)
		if _, err := s.pool.Exec(context.Background(), `VACUUM ANALYZE alarms`); err != nil {
			t.Fatal(err)
		}
		explainGeneric(t, s, claimSQL, options) // warm the cache; the second run is reported
		fmt.Fprintf(&report, "\n== claim, generic plan: %d not yet due, 10000 due, batch 100 ==\n%s",
			notDue, explainGeneric(t, s, claimSQL, options))
		if notDue == 1_000_000 {
			explainGeneric(t, s, naive, options)
			fmt.Fprintf(&report, "\n== naive id IN (SELECT ...), generic plan: %d not yet due, 10000 due, batch 100 ==\n%s",
				notDue, explainGeneric(t, s, naive, options))
		}
		_ = s.Close()
	}
	if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

package sqlite

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// Every column of every table that moves with a cluster is read by the statement
// `chronos export` reads it with, or is rebuilt by the import from what it reads; the
// tables that do not move say why. A column a migration adds fails this test until the
// export reads it (or the list below says why it need not), so a move never drops one
// unnoticed. The schemas of the three stores are kept alike by their migrations.
func TestExportReadsEveryColumn(t *testing.T) {
	selected := func(statement string) []string {
		m := regexp.MustCompile(`(?s)SELECT\s+(.*?)\s+FROM`).FindStringSubmatch(statement)
		if m == nil {
			t.Fatalf("no column list in %q", statement)
		}
		return columnNames(m[1])
	}
	moved := map[string]struct {
		read    []string // the export's statement's columns
		rebuilt []string // the columns the import writes from the others
	}{
		"alarms":           {read: selected(engineSQL.ExportAlarms), rebuilt: []string{"lane"}}, // the owner's hash
		"alarm_events":     {read: selected(engineSQL.ExportEvents)},
		"alarm_tags":       {rebuilt: []string{"alarm_id", "owner", "tag_key", "tag_value"}},   // the alarm's tags
		"series_calendars": {rebuilt: []string{"owner", "calendar", "series_id"}},              // the series' exclude_calendars
		"api_tokens":       {read: selected(sqlrow.ListTokensSQL), rebuilt: []string{"admin"}}, // ListTokens(""); admin: the scope, for older binaries
		"endpoints":        {read: selected(sqlrow.ListAllEndpointsSQL)},                       // ports.EndpointStore.ListEndpoints("")
		"calendars":        {read: selected(engineSQL.ExportCalendars)},
		"chronos_state":    {read: []string{"name", "value"}, rebuilt: []string{"updated_at"}}, // GetState; the import's stamp
	}
	stays := map[string]string{
		"workers":          "the old nodes' heartbeats: the new cluster's nodes register themselves",
		"chronos_leases":   "held by the old nodes",
		"ui_sessions":      "dashboard sign-ins: everyone signs in again (docs/migrating-stores.md)",
		"goose_db_version": "the schema's own version, made by migrating the target",
	}

	s := openStoreForColumns(t)
	rows, err := s.reader.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		if _, ok := stays[table]; ok {
			continue
		}
		m, ok := moved[table]
		if !ok {
			t.Errorf("table %s is new: export it (internal/transfer) or say here why it stays behind", table)
			continue
		}
		cols, err := s.reader.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var col string
			if err := cols.Scan(&col); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(m.read, col) && !slices.Contains(m.rebuilt, col) {
				t.Errorf("column %s.%s is not read by the export: a move would drop it", table, col)
			}
		}
		if err := cols.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// columnNames are the names of a SELECT's column list.
func columnNames(list string) []string {
	var out []string
	for _, c := range strings.Split(list, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

func openStoreForColumns(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), "sqlite://"+filepath.Join(t.TempDir(), "columns.db"), Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

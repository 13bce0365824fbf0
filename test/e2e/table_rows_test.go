//go:build e2e

package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// Row is one table row as text, by column name: what a test compares across an
// upgrade without knowing the schema of either release. NULL is "NULL".
type Row map[string]string

// TableRows reads every row of table in the store at storeURL with the database's own
// driver (not chronos's adapter, which refuses a schema it does not expect), keyed by
// the key column's text.
func TableRows(t *testing.T, kind storeKind, storeURL, table, key string) map[string]Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	query := "SELECT * FROM " + table
	var (
		cols []string
		vals [][]any
	)
	switch kind {
	case onPostgres:
		conn, err := pgx.Connect(ctx, storeURL) // its search_path parameter selects the schema
		if err != nil {
			t.Fatalf("connecting to read %s: %v", table, err)
		}
		defer conn.Close(context.Background())
		rows, err := conn.Query(ctx, query)
		if err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
		for _, f := range rows.FieldDescriptions() {
			cols = append(cols, f.Name)
		}
		for rows.Next() {
			v, err := rows.Values()
			if err != nil {
				t.Fatalf("reading %s: %v", table, err)
			}
			vals = append(vals, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
	case onSQLite, onMySQL:
		db := openSQL(t, kind, storeURL)
		defer db.Close()
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
		defer rows.Close()
		if cols, err = rows.Columns(); err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			v := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("reading %s: %v", table, err)
			}
			vals = append(vals, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
	default:
		t.Fatalf("unknown store kind %q", kind)
	}
	out := make(map[string]Row, len(vals))
	for _, v := range vals {
		r := make(Row, len(cols))
		for i, c := range cols {
			r[c] = cellText(v[i])
		}
		out[r[key]] = r
	}
	return out
}

// openSQL opens the SQLite file or MySQL database of a store URL with database/sql,
// read-only for SQLite.
func openSQL(t *testing.T, kind storeKind, storeURL string) *sql.DB {
	t.Helper()
	if kind == onSQLite {
		path, err := sqlite.ParseURL(storeURL)
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	cfg, err := mysqlAdminConfig(storeURL)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(storeURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sql.OpenDB(connector)
}

func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	default:
		return fmt.Sprint(v)
	}
}

// NewColumn is what a row written before a migration added a column must hold in it.
type NewColumn struct {
	Want string // what it must hold, as a message says it
	OK   func(v string) bool
}

// Default is a column added with a constant default, v in cellText's form.
func Default(v string) NewColumn {
	return NewColumn{fmt.Sprintf("its default %q", v), func(got string) bool { return got == v }}
}

// AnyLane is a generated claim lane (MySQL's migration 00008), which each row derives
// from its owner: any lane from 0 to ports.Lanes-1.
var AnyLane = NewColumn{"a claim lane", func(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 0 && n < ports.Lanes
}}

// NullOrSet is a column the new release writes as it runs (a token's last use): NULL
// until then, some value after.
var NullOrSet = NewColumn{"NULL, or a value the running release wrote", func(v string) bool { return v != "" }}

// SameRows reports, for each id, how its row in after differs from its row in before:
// a column of before that changed or went away, or a column only after has (one a
// migration added) whose value is not what newColumns says it must be.
func SameRows(before, after map[string]Row, ids []string, newColumns map[string]NewColumn) []string {
	var diffs []string
	for _, id := range ids {
		b, ok := before[id]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: not there before", id))
			continue
		}
		a, ok := after[id]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: gone", id))
			continue
		}
		for col, v := range b {
			if got, ok := a[col]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: column %s gone (was %q)", id, col, v))
			} else if got != v {
				diffs = append(diffs, fmt.Sprintf("%s: %s = %q, was %q", id, col, got, v))
			}
		}
		for col, v := range a {
			if _, old := b[col]; old {
				continue
			}
			if want, ok := newColumns[col]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: new column %s (%q) the test does not know", id, col, v))
			} else if !want.OK(v) {
				diffs = append(diffs, fmt.Sprintf("%s: new column %s = %q, want %s", id, col, v, want.Want))
			}
		}
	}
	return diffs
}

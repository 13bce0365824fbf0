package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the "sqlite" driver sqliteSizes reads dbstat with
)

// tableSize is the space one of chronos's tables takes, its indexes included.
type tableSize struct {
	Table      string `json:"table"`
	Bytes      int64  `json:"bytes"`                 // table and indexes
	IndexBytes int64  `json:"index_bytes,omitempty"` // of which indexes, where the server tells them apart
}

// watchedTables are the tables whose growth a run watches.
var watchedTables = []string{"alarms", "alarm_events"}

// postgresSizes reads the sizes from the server: pg_table_size (heap, TOAST, free
// space and visibility maps) and pg_indexes_size.
func postgresSizes(ctx context.Context, dbURL string) ([]tableSize, error) {
	c, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, `
		SELECT relname, pg_table_size(oid) + pg_indexes_size(oid), pg_indexes_size(oid)
		FROM pg_class WHERE relname = ANY($1) AND relkind = 'r' AND relnamespace = current_schema()::regnamespace
		ORDER BY relname`, watchedTables)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableSize, error) {
		var s tableSize
		return s, r.Scan(&s.Table, &s.Bytes, &s.IndexBytes)
	})
}

// mysqlSizes reads the size of each table's own tablespace file (innodb_file_per_table,
// the default): the clustered index (the rows) and the secondary indexes together.
// MariaDB names the view INNODB_SYS_TABLESPACES, MySQL 8 INNODB_TABLESPACES.
func mysqlSizes(ctx context.Context, admin *sql.DB, database string) ([]tableSize, error) {
	var out []tableSize
	for _, view := range []string{"INNODB_SYS_TABLESPACES", "INNODB_TABLESPACES"} {
		rows, err := admin.QueryContext(ctx, `SELECT NAME, FILE_SIZE FROM information_schema.`+view+` WHERE NAME IN (?, ?)`,
			database+"/"+watchedTables[0], database+"/"+watchedTables[1])
		if err != nil {
			continue // the other server's view
		}
		defer rows.Close()
		for rows.Next() {
			var s tableSize
			if err := rows.Scan(&s.Table, &s.Bytes); err != nil {
				return nil, err
			}
			s.Table = strings.TrimPrefix(s.Table, database+"/")
			out = append(out, s)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
		return out, rows.Err()
	}
	return nil, fmt.Errorf("neither information_schema.INNODB_SYS_TABLESPACES nor INNODB_TABLESPACES is readable")
}

// sqliteSizes sums the pages of each table and its indexes (the dbstat virtual table),
// and adds the write-ahead log to no table: it is reported as its own line.
func sqliteSizes(ctx context.Context, path string) ([]tableSize, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `
		SELECT m.tbl_name, sum(d.pgsize), sum(CASE WHEN m.type = 'index' THEN d.pgsize ELSE 0 END)
		FROM dbstat d JOIN sqlite_master m ON m.name = d.name
		WHERE m.tbl_name IN (?, ?) GROUP BY m.tbl_name ORDER BY m.tbl_name`, watchedTables[0], watchedTables[1])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tableSize
	for rows.Next() {
		var s tableSize
		if err := rows.Scan(&s.Table, &s.Bytes, &s.IndexBytes); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		out = append(out, tableSize{Table: "(write-ahead log)", Bytes: fi.Size()})
	}
	return out, nil
}

func formatSizes(sizes []tableSize) string {
	if len(sizes) == 0 {
		return "-"
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = s.Table + " " + mib(s.Bytes)
		if s.IndexBytes > 0 {
			parts[i] += " (indexes " + mib(s.IndexBytes) + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// peakRSS is this process's peak resident set size: VmHWM from /proc/self/status, the
// high-water mark of this process's own address space.
//
// Not getrusage's ru_maxrss: Linux carries it over an exec from the address space the
// exec replaced, and Go starts a child process with clone(CLONE_VM|CLONE_VFORK), so
// that address space is the parent's. A worker the bench started after loading 500,000
// alarms reported the bench's own peak, ~590 MiB, while its heap never passed 131 MB
// (GODEBUG=gctrace=1). getrusage stays the fallback where /proc is not mounted.
func peakRSS() int64 {
	if hwm := statusKiB("VmHWM:"); hwm > 0 {
		return hwm * 1024
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// statusKiB is the value of a "Name:   1234 kB" line of /proc/self/status, 0 where
// unknown.
func statusKiB(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, name); ok {
			var kib int64
			if _, err := fmt.Sscan(rest, &kib); err == nil {
				return kib
			}
		}
	}
	return 0
}

// currentRSS is this process's resident set size now (VmRSS), 0 where unknown.
func currentRSS() int64 { return statusKiB("VmRSS:") * 1024 }

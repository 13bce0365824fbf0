// Package migrations holds the SQL schema of every store dialect, embedded so the binary
// migrates its own database. Each dialect folder is a goose migration set
// (github.com/pressly/goose/v3), applied by its adapter's Migrate and checked at Open.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql
var sqliteFS embed.FS

//go:embed postgres/*.sql
var postgresFS embed.FS

//go:embed mysql/*.sql
var mysqlFS embed.FS

// SQLite returns the SQLite migrations, rooted at the folder.
func SQLite() fs.FS { return sub(sqliteFS, "sqlite") }

// Postgres returns the PostgreSQL migrations, rooted at the folder.
func Postgres() fs.FS { return sub(postgresFS, "postgres") }

// MySQL returns the MySQL/MariaDB migrations, rooted at the folder.
func MySQL() fs.FS { return sub(mysqlFS, "mysql") }

func sub(f embed.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the directory is embedded at build time; this cannot fail
	}
	return s
}

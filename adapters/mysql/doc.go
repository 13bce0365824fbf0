// Package mysql is the MySQL 8.0+ / MariaDB 10.6+ implementation of ports.Store, on
// github.com/go-sql-driver/mysql through database/sql.
//
// Due alarms are claimed with SELECT ... FOR UPDATE SKIP LOCKED in short READ COMMITTED
// transactions, so any number of chronos processes can share one database; outcomes are
// applied in batches fenced on the lease; the database clock decides what is due unless
// a Clock is injected. Open connects (store URL mysql://user:password@host:port/dbname)
// and checks the server and the schema; Migrate applies the embedded migrations.
// docs/mysql.md explains the design and how it differs from the PostgreSQL store.
package mysql

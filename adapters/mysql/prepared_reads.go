package mysql

import (
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// The engine's reads (list pages, an alarm by id, its events, a token by its hash, the
// next due time) go to the server as prepared statements once their text is called
// again. Sent as text, each is lexed and parsed on every call and its rows come back as
// text the driver converts; prepared, a read is one round trip (COM_STMT_EXECUTE) with
// binary parameters and rows, as pgx's statement cache gives PostgreSQL. On a
// 1,000,000-alarm database, 8 clients: the first page 1.22× the calls a second, a tag
// page of two pairs 1.20× (docs/benchmarks.md, "Prepared reads on MySQL/MariaDB").
//
// A text called only once is never prepared. At most 64 are kept, each prepared on
// every connection that ran it, against the server's max_prepared_stmt_count (shared
// with every client; the batch statements keep up to preparedMaxTexts more): the least
// recently used is closed to make room, and a prepare the server refuses runs as text.
var preparedReads = sqlstore.PreparedOptions{Max: 64, After: 2, Refused: prepareRefused}

// newReads is the engine's Read on db.
func newReads(db *sql.DB) *sqlstore.PreparedDB { return sqlstore.Prepared(db, preparedReads) }

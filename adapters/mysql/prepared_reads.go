package mysql

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// The engine's reads (list pages, an alarm by id, its events, a token by its hash) go to
// the server as prepared statements once their text is seen again. Sent as text, each is
// lexed and parsed on every call and its rows come back as text the driver converts; a
// prepared statement is one round trip (COM_STMT_EXECUTE) with binary parameters and
// rows. On a 1,000,000-alarm database, 8 clients: the first page 1.31× the calls per
// second, a walked tag page 1.23× (docs/benchmarks.md, "Prepared reads"). PostgreSQL's
// pgx caches its statements the same way; SQLite's driver prepares every statement.
//
// A text is prepared on its second call, not its first: a read whose text never repeats
// (a filter nobody pages through) costs no prepare. readMaxTexts bounds the texts kept
// (each prepared on every connection that ran it, against the server's
// max_prepared_stmt_count, shared with every client): the least recently used is closed
// to make room, so a long-lived node whose users page through many filter shapes keeps
// its hot ones prepared.
const readMaxTexts = 64

// readCache holds the prepared reads, most recently used first.
type readCache struct {
	db   *sql.DB
	max  int // readMaxTexts
	mu   sync.Mutex
	byQ  map[string]*list.Element // of *readStmt
	lru  list.List
	seen map[string]bool // texts called once, not prepared yet
	runs atomic.Int64    // reads that ran prepared
}

type readStmt struct {
	query string
	stmt  *sql.Stmt // nil: the server refused it (or is preparing it); send as text
}

func newReadCache(db *sql.DB) *readCache {
	return &readCache{db: db, max: readMaxTexts, byQ: map[string]*list.Element{}, seen: map[string]bool{}}
}

// get returns query's prepared statement, preparing it on the pool when this is its
// second call; nil sends it as text. The caller holds no connection (reads run on the
// pool, outside any transaction), so the prepare's wait for one cannot hold up another.
func (c *readCache) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	if e, ok := c.byQ[query]; ok {
		c.lru.MoveToFront(e)
		st := e.Value.(*readStmt).stmt
		c.mu.Unlock()
		return st
	}
	if !c.seen[query] {
		if len(c.seen) >= 4*c.max {
			clear(c.seen) // texts seen once long ago: forget them rather than grow
		}
		c.seen[query] = true
		c.mu.Unlock()
		return nil
	}
	delete(c.seen, query)
	rs := &readStmt{query: query} // nil stmt meanwhile: other callers send it as text
	c.byQ[query] = c.lru.PushFront(rs)
	var evicted *sql.Stmt
	if c.lru.Len() > c.max {
		last := c.lru.Back()
		c.lru.Remove(last)
		old := last.Value.(*readStmt)
		delete(c.byQ, old.query)
		evicted = old.stmt
	}
	c.mu.Unlock()
	if evicted != nil {
		_ = evicted.Close() // database/sql closes it once its running queries are done
	}
	st, err := c.db.PrepareContext(ctx, query)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byQ[query]; !ok || e.Value.(*readStmt) != rs {
		// Evicted while it was being prepared: not kept.
		if st != nil {
			_ = st.Close()
		}
		return nil
	}
	var refused *mysql.MySQLError
	switch {
	case err == nil:
		rs.stmt = st
		return st
	case errors.As(err, &refused):
		// The server will not prepare it (max_prepared_stmt_count reached): the entry
		// stays with no statement, so the text is not prepared again until evicted.
		return nil
	default:
		// A lost connection or a cancelled context: try again on a later call.
		c.lru.Remove(c.byQ[query])
		delete(c.byQ, query)
		return nil
	}
}

func (c *readCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; e = e.Next() {
		if st := e.Value.(*readStmt).stmt; st != nil {
			_ = st.Close()
		}
	}
	c.lru.Init()
	clear(c.byQ)
	clear(c.seen)
}

// readDB is the engine's Read: the pool, its repeated texts run prepared. Its writes
// (Exec) go as text, as the engine's Write does.
type readDB struct {
	sqlstore.DB // the pool as text
	stmts       *readCache
}

func (r readDB) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	if st := r.stmts.get(ctx, query); st != nil {
		r.stmts.runs.Add(1)
		return preparedRow{st.QueryRowContext(ctx, args...), func() sqlrow.Scanner { return r.DB.QueryRow(ctx, query, args...) }}
	}
	return r.DB.QueryRow(ctx, query, args...)
}

func (r readDB) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	if st := r.stmts.get(ctx, query); st != nil {
		rows, err := st.QueryContext(ctx, args...)
		if err == nil {
			r.stmts.runs.Add(1)
			return readRows{rows}, nil
		}
		if !prepareRefused(err) {
			return nil, err
		}
		// A connection new to the statement, at the server's limit: as text.
	}
	return r.DB.Query(ctx, query, args...)
}

// preparedRow is a prepared QueryRow that falls back to the text when the server
// refused to prepare it on the connection the row was read on.
type preparedRow struct {
	row    *sql.Row
	asText func() sqlrow.Scanner
}

func (p preparedRow) Scan(dest ...any) error {
	err := p.row.Scan(dest...)
	if prepareRefused(err) {
		return p.asText().Scan(dest...)
	}
	return err
}

// readRows closes without an error to report: a read error surfaces through Err.
type readRows struct{ *sql.Rows }

func (r readRows) Close() { _ = r.Rows.Close() }

// prepared is how many texts are held prepared (for the tests).
func (c *readCache) prepared() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for e := c.lru.Front(); e != nil; e = e.Next() {
		if e.Value.(*readStmt).stmt != nil {
			n++
		}
	}
	return n
}

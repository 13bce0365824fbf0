package mysql

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/go-sql-driver/mysql"
)

// The batch statements of a claim and an Apply (an IN list of a batch's ids, a derived
// table of its transitions, a multi-row INSERT of its events) carry thousands of
// arguments. Sent as text (interpolateParams), every one is a literal the server lexes,
// converts to the connection's character set and turns into an item, on every batch:
// about a tenth of MariaDB's CPU in a burn-down, a sixth under a steady stream. Prepared
// once and executed with binary parameters, the server parses each text once per
// connection. Batch statements are sent at a few sizes only (buckets.go), so a handful of
// texts covers every batch. The first batch of each size goes as text; the store
// prepares the text once that transaction is over.
//
// preparedMaxTexts bounds the texts kept prepared (each on every connection that ran it,
// against the server's max_prepared_stmt_count, 16,382 by default, shared by every
// client): the bucketed statements need about 100. Texts beyond it are sent as text.
const preparedMaxTexts = 128

// stmtCache holds the prepared batch statements, by text.
//
// A statement is prepared outside any transaction, after the first transaction that
// ran it (as text) is over: preparing on the DB takes a connection from the pool, and a
// transaction that waited for one while holding its own could wait forever once every
// connection is held that way. Within a transaction a cached statement is bound to the
// transaction's own connection (database/sql prepares it there the first time).
type stmtCache struct {
	db      *sql.DB
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt // nil value: the server refused to prepare it; send as text
	pending map[string]bool      // to prepare: true once someone is preparing it
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}, pending: map[string]bool{}}
}

// get returns the prepared statement for query, or nil: the caller then sends it as
// text, and the text is queued for prepareQueued.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if _, ok := c.pending[query]; !ok && len(c.stmts)+len(c.pending) < preparedMaxTexts {
		c.pending[query] = false
	}
	return nil
}

// prepareQueued prepares the statements get queued. Call it with no transaction open:
// it takes a connection from the pool.
func (c *stmtCache) prepareQueued(ctx context.Context) {
	c.mu.Lock()
	var todo []string
	for q, taken := range c.pending {
		if !taken {
			c.pending[q] = true
			todo = append(todo, q)
		}
	}
	c.mu.Unlock()
	for _, q := range todo {
		st, err := c.db.PrepareContext(ctx, q)
		var refused *mysql.MySQLError
		c.mu.Lock()
		delete(c.pending, q)
		switch {
		case err == nil:
			c.stmts[q] = st
		case errors.As(err, &refused):
			// The server will not prepare it (max_prepared_stmt_count reached, a proxy
			// without prepared statements): the text path works; keep using it. A fault
			// in the query itself shows when it runs.
			c.stmts[q] = nil
		default:
			// The connection or the context failed: queued again at its next use.
		}
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		if st != nil {
			_ = st.Close()
		}
		delete(c.stmts, q)
	}
}

// batchTx is a transaction that runs large statements prepared.
type batchTx struct {
	*sql.Tx
	stmts *stmtCache
}

func (s *Store) batch(tx *sql.Tx) batchTx { return batchTx{Tx: tx, stmts: s.stmts} }

// exec runs query in the transaction, prepared when it is a cached batch statement,
// bound to the transaction's connection and released with the transaction.
func (t batchTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmts.get(query); st != nil {
		res, err := t.StmtContext(ctx, st).ExecContext(ctx, args...)
		if !prepareRefused(err) {
			return res, err
		}
	}
	return t.ExecContext(ctx, query, args...)
}

// query is exec for a statement that returns rows.
func (t batchTx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmts.get(query); st != nil {
		rows, err := t.StmtContext(ctx, st).QueryContext(ctx, args...)
		if !prepareRefused(err) {
			return rows, err
		}
	}
	return t.QueryContext(ctx, query, args...)
}

// erMaxPreparedStmtCountReached is the server's "Can't create more than
// max_prepared_stmt_count statements".
const erMaxPreparedStmtCountReached = 1461

// prepareRefused reports whether err is the server refusing to prepare a cached
// statement on the transaction's connection (database/sql prepares it there at first
// use): its limit is server-wide, shared with every other client, so it can be reached
// after the text was first prepared elsewhere. Nothing ran, and a refused prepare does
// not end the transaction, so the caller sends the statement as text instead.
func prepareRefused(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == erMaxPreparedStmtCountReached
}

package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TagSQL is what a dialect says about the alarm_tags table (migrations 00012): one row
// per tag, primary key (alarm_id, tag_key), and alarm_tags_filter on (owner, tag_key,
// tag_value, alarm_id). The engine writes every statement on it from these.
type TagSQL struct {
	// Param is the i-th (1-based) placeholder of a statement: "?" or "$i".
	Param func(i int) string
	// LabelPrefix is the condition that column starts with prefix byte for byte, its
	// arguments bound through arg (which returns each one's placeholder).
	LabelPrefix func(column, prefix string, arg func(any) string) string
	// Cast is placeholder p as a value of the SQL type typ ("text", "timestamptz"),
	// where the database cannot infer a parameter's type from "p IS NULL".
	Cast func(p, typ string) string
	// Object is the aggregate of alarm_tags rows into one JSON object of tag_key to
	// tag_value, as text (NULL or {} over no rows).
	Object string
	// StatusWalk is the FROM clause of a tag page that walks the owner's alarms of one
	// status instead (statusTagPage): alarms as a, walked by its (owner, status, id)
	// index, pinned where the planner needs it.
	StatusWalk string
	// Join is the page's FROM clause: alarm_tags as t, then alarms as a on a.id =
	// t.alarm_id, with whatever the dialect's planner needs to keep to that order.
	Join string
	// Inline puts the tags column into a read's own select list (tagged) rather than
	// reading the statement as a derived table: MariaDB materializes a derived table
	// whose rows hold BLOB or TEXT columns (payload, wake_message) as an on-disk
	// temporary table, which cost a page of 50 three times its own read.
	Inline bool
	// BoundFirst is "" where the planner takes a scalar subquery compared with an index
	// column as a bound of the index range it walks (PostgreSQL, SQLite): the bound of a
	// walk cut after TagWalk entries (walkTagPage) is then read from a materialized CTE
	// in place. Where it does not (MySQL), it is the join that reads the bound first, as
	// a one-row table w(bound) a planner takes as a constant, before Join: "STRAIGHT_JOIN".
	BoundFirst string
}

// PlainTagJoin is TagSQL.Join where the planner needs no hint.
const PlainTagJoin = `alarm_tags t JOIN alarms a ON a.id = t.alarm_id`

// tagChunk bounds the ids (or rows of four values) one tag statement binds: far under
// every database's parameter limit, and a power of two, so a chunk is one of the
// bucketed sizes (sqltext.PaddedSize).
const tagChunk = 256

// stmt builds a statement's text and arguments together, numbering placeholders.
type stmt struct {
	param func(int) string
	args  []any
}

func (s *stmt) arg(v any) string { s.args = append(s.args, v); return s.param(len(s.args)) }

// paddedList is ids as the placeholders of an IN list, padded with NULLs (which match
// nothing) to sqltext.PaddedSize(len(ids)): the statement is one of a few texts,
// whatever the number of ids, and each can be prepared once.
func (s *stmt) paddedList(ids []string) string {
	marks := make([]string, sqltext.PaddedSize(len(ids)))
	for i := range marks {
		var v any
		if i < len(ids) {
			v = ids[i]
		}
		marks[i] = s.arg(v)
	}
	return strings.Join(marks, ", ")
}

// tagged is q, a statement whose rows are sqlrow.AlarmColumns, with the row's tags as
// one more column (tagColumn), in the order order (an ORDER BY on r.id, or "" for one
// row). The tags are read by alarm_tags' primary key for each row q returns, in the same
// statement, so a read costs no second round trip, and an alarm without tags one probe
// of an index that finds nothing.
//
// With TagSQL.Inline the column goes last in q's select list, before q's own FROM (the
// first outside parentheses), and q keeps its own order. Its subquery names the alarm's
// id unqualified: no table a read joins to alarms has a column id, so id is the id of
// q's one alarms row.
func (e *Engine[T]) tagged(q, order string) string {
	if e.Tags.Inline {
		i := selectEnd(q)
		return q[:i] + `, (SELECT ` + e.Tags.Object + ` FROM alarm_tags g WHERE g.alarm_id = id)` + q[i:]
	}
	return `SELECT r.*, (SELECT ` + e.Tags.Object + ` FROM alarm_tags g WHERE g.alarm_id = r.id) FROM (` + q + `) r` + order
}

// selectEnd is where q's select list ends: before its first " FROM " outside
// parentheses (a subquery in the list has its own).
func selectEnd(q string) int {
	depth := 0
	for i := range len(q) {
		switch q[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 && strings.HasPrefix(q[i:], ` FROM `) {
				return i
			}
		}
	}
	return len(q)
}

// tagColumn reads the rows of a tagged statement: a Scanner (or Rows) that hands the
// dialect's scanner the alarm's columns and keeps the last column, the tags, aside; and
// with walked, the two before it, walkTagPage's hit and edge.
type tagColumn struct {
	sqlrow.Rows
	row         sqlrow.Scanner // the row Scan reads: Rows, or a single row
	walked      bool
	tags        []map[string]string
	hits, edges []bool
	err         error
}

func (c *tagColumn) Scan(dest ...any) error {
	var raw []byte
	var hit, edge int64
	more := []any{&raw}
	if c.walked {
		more = []any{&hit, &edge, &raw}
	}
	if err := c.row.Scan(append(dest[:len(dest):len(dest)], more...)...); err != nil {
		return err
	}
	if c.walked {
		c.hits, c.edges = append(c.hits, hit == 1), append(c.edges, edge == 1)
	}
	var tags map[string]string
	if raw != nil {
		if err := json.Unmarshal(raw, &tags); err != nil && c.err == nil {
			c.err = fmt.Errorf("alarm_tags: %w", err)
		}
	}
	if len(tags) == 0 {
		tags = nil // an alarm without tags: SQLite's aggregate says {}, the others NULL
	}
	c.tags = append(c.tags, tags)
	return nil
}

// setTags gives as (read through c, one per row) their tags.
func (c *tagColumn) setTags(as []domain.Alarm) error {
	if c.err != nil {
		return c.err
	}
	for i := range as {
		as[i].Tags = c.tags[i]
	}
	return nil
}

// scanTagged reads the rows of a tagged statement, tags included.
func (e *Engine[T]) scanTagged(rows Rows, hint int) ([]domain.Alarm, error) {
	c := &tagColumn{Rows: rows, row: rows}
	as, err := e.ScanAlarms(c, hint)
	if err != nil {
		return nil, err
	}
	return as, c.setTags(as)
}

// scanTaggedRow reads the one row of a tagged statement, tags included.
func (e *Engine[T]) scanTaggedRow(row sqlrow.Scanner) (domain.Alarm, error) {
	c := &tagColumn{row: row}
	a, err := e.ScanAlarm(c)
	if err != nil {
		return a, err
	}
	as := []domain.Alarm{a}
	err = c.setTags(as)
	return as[0], err
}

// withTags reads the tags of as through db by the primary key of alarm_tags, one
// statement per tagChunk alarms, and sets each alarm's; an alarm without tags gets nil.
// It is for the writes that read alarms locked (Mutate) or by key (CreateBatch); the
// reads take the tags in their own statement (tagged).
func (e *Engine[T]) withTags(ctx context.Context, db DB, as []domain.Alarm) error {
	at := make(map[string]int, len(as))
	ids := make([]string, 0, len(as))
	for i, a := range as {
		if _, dup := at[a.ID]; !dup {
			at[a.ID] = i
			ids = append(ids, a.ID)
		}
		as[i].Tags = nil
	}
	for chunk := range slices.Chunk(ids, tagChunk) {
		s := stmt{param: e.Tags.Param}
		q := `SELECT alarm_id, tag_key, tag_value FROM alarm_tags WHERE alarm_id IN (` + s.paddedList(chunk) + `)`
		rows, err := db.Query(ctx, q, s.args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, k, v string
			if err := rows.Scan(&id, &k, &v); err != nil {
				rows.Close()
				return err
			}
			a := &as[at[id]]
			if a.Tags == nil {
				a.Tags = map[string]string{}
			}
			a.Tags[k] = v
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	// One alarm may stand in as more than once (items of a batch deduped to it).
	for i, a := range as {
		if j := at[a.ID]; j != i {
			as[i].Tags = maps.Clone(as[j].Tags)
		}
	}
	return nil
}

// insertTags writes the tags of as (just inserted, in tx) into alarm_tags, in
// multi-row INSERTs of the sizes sqltext.InsertPieces cuts.
func (e *Engine[T]) insertTags(ctx context.Context, tx DB, as []domain.Alarm) error {
	type row struct{ id, owner, k, v string }
	var rows []row
	for _, a := range as {
		for _, k := range slices.Sorted(maps.Keys(a.Tags)) {
			rows = append(rows, row{a.ID, a.Owner, k, a.Tags[k]})
		}
	}
	for chunk := range slices.Chunk(rows, tagChunk) {
		err := sqltext.EachPiece(chunk, func(piece []row) error {
			s := stmt{param: e.Tags.Param}
			values := make([]string, len(piece))
			for i, r := range piece {
				values[i] = "(" + s.arg(r.id) + ", " + s.arg(r.owner) + ", " + s.arg(r.k) + ", " + s.arg(r.v) + ")"
			}
			_, err := tx.Exec(ctx, `INSERT INTO alarm_tags (alarm_id, owner, tag_key, tag_value) VALUES `+
				strings.Join(values, ", "), s.args...)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteTags deletes in tx the tags of the alarms with these ids.
func (e *Engine[T]) deleteTags(ctx context.Context, tx DB, ids []string) error {
	for chunk := range slices.Chunk(ids, tagChunk) {
		s := stmt{param: e.Tags.Param}
		if _, err := tx.Exec(ctx, `DELETE FROM alarm_tags WHERE alarm_id IN (`+s.paddedList(chunk)+`)`, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// replaceTags makes a's tags (as read in tx) tags: a delete and an insert, only when
// they differ, so an update of anything else writes nothing here.
func (e *Engine[T]) replaceTags(ctx context.Context, tx DB, a domain.Alarm, tags map[string]string) error {
	if domain.TagsEqual(a.Tags, tags) {
		return nil
	}
	if len(a.Tags) > 0 {
		if err := e.deleteTags(ctx, tx, []string{a.ID}); err != nil {
			return err
		}
	}
	a.Tags = tags
	return e.insertTags(ctx, tx, []domain.Alarm{a})
}

// tagsOfBatch writes, in CreateBatch's tx, the tags of the alarms it created (by the
// batch's insert or a debounced item's own), then reads those of the alarms its other
// items answer (deduped to, or replaced: a replace keeps the alarm's tags), which may
// have been read by key, without them.
func (e *Engine[T]) tagsOfBatch(ctx context.Context, tx DB, out []ports.CreateResult) error {
	var fresh, twins []domain.Alarm
	var at []int
	for i, r := range out {
		switch {
		case r.Err != nil:
		case r.Deduped || r.Replaced:
			twins, at = append(twins, r.Alarm), append(at, i)
		case len(r.Alarm.Tags) > 0:
			fresh = append(fresh, r.Alarm)
		}
	}
	if err := e.insertTags(ctx, tx, fresh); err != nil {
		return err
	}
	if len(twins) == 0 {
		return nil
	}
	if err := e.withTags(ctx, tx, twins); err != nil {
		return err
	}
	for j, i := range at {
		out[i].Alarm = twins[j]
	}
	return nil
}

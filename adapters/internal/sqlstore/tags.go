package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
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
// With TagSQL.Inline the column goes before q's first FROM (q's select list is a list of
// columns) and q keeps its own order. Its subquery names the alarm's id unqualified:
// alarm_tags has no column id, so id is the id of q's one alarms row.
func (e *Engine[T]) tagged(q, order string) string {
	if e.Tags.Inline {
		i := strings.Index(q, ` FROM `)
		return q[:i] + `, (SELECT ` + e.Tags.Object + ` FROM alarm_tags g WHERE g.alarm_id = id)` + q[i:]
	}
	return `SELECT r.*, (SELECT ` + e.Tags.Object + ` FROM alarm_tags g WHERE g.alarm_id = r.id) FROM (` + q + `) r` + order
}

// tagColumn reads the rows of a tagged statement: a Scanner (or Rows) that hands the
// dialect's scanner the alarm's columns and keeps the last column, the tags, aside.
type tagColumn struct {
	sqlrow.Rows
	row  sqlrow.Scanner // the row Scan reads: Rows, or a single row
	tags []map[string]string
	err  error
}

func (c *tagColumn) Scan(dest ...any) error {
	var raw []byte
	if err := c.row.Scan(append(dest[:len(dest):len(dest)], &raw)...); err != nil {
		return err
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

// tagPage is the page of a filter with tags: statusTagPage when f names one owner and a
// rare status (walkStatusFirst), else the walk of the first pair's tag index.
func (e *Engine[T]) tagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	if walkStatusFirst(f) {
		return e.statusTagPage(f, after, limit)
	}
	return e.pairTagPage(f, after, limit)
}

// walkStatusFirst says whether a tag page of f walks the owner's alarms of f's status
// rather than the alarms of its first pair: when the scope is one owner and the status
// is one a healthy owner has few alarms of (failed, paused, cancelled: the statuses
// the stores' rare-status indexes hold). A page then costs the owner's alarms of that
// status it passes over, where the pair's walk would pass over every alarm of a common
// tag to find the few of that status. For active and fired (most alarms), the pair is
// the rarer of the two, and its walk is kept.
func walkStatusFirst(f ports.ListFilter) bool {
	if f.Scope.IsAnyOwner() {
		return false
	}
	switch f.Status {
	case domain.StatusFailed, domain.StatusPaused, domain.StatusCancelled:
		return true
	}
	return false
}

// pairTagPage is the page of a filter with tags that walks its first pair. With one owner in scope it walks
// alarm_tags_filter for the owner's first pair backwards from the cursor (the index
// holds the alarm id last, so the walk is in the list's order), checks every other pair
// by the alarm's primary key in alarm_tags, joins the alarm by its own and checks the
// other filters on it: a page costs the first pair's alarms it passes over. Across
// owners the walk has no owner to start from; the port allows such a page its cost.
func (e *Engine[T]) pairTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	s := stmt{param: e.Tags.Param}
	first := f.Tags[0]
	var conds []string
	if !f.Scope.IsAnyOwner() {
		conds = append(conds, `t.owner = `+s.arg(f.Scope.Owner()))
	}
	conds = append(conds, `t.tag_key = `+s.arg(first.Key), `t.tag_value = `+s.arg(first.Value))
	if after != "" {
		conds = append(conds, `t.alarm_id < `+s.arg(after))
	}
	conds = append(conds, pairConds(&s, `t.alarm_id`, f.Tags[1:])...)
	conds = append(conds, e.alarmConds(&s, f, true)...)
	q := `SELECT ` + sqlrow.Qualified("a", sqlrow.AlarmColumns) + ` FROM ` + e.Tags.Join + ` WHERE ` +
		strings.Join(conds, ` AND `) + ` ORDER BY t.alarm_id DESC LIMIT ` + s.arg(limit+1)
	return q, s.args
}

// pairConds checks each pair of tags on the alarm whose id is idExpr by one primary-key
// lookup in alarm_tags: a scalar subquery, which no planner turns into a join that walks
// the pair's alarms for each row.
func pairConds(s *stmt, idExpr string, tags []domain.TagFilter) []string {
	conds := make([]string, 0, len(tags))
	for i, tf := range tags {
		x := "x" + strconv.Itoa(i+1)
		conds = append(conds, `(SELECT `+x+`.tag_value FROM alarm_tags `+x+` WHERE `+x+`.alarm_id = `+idExpr+` AND `+
			x+`.tag_key = `+s.arg(tf.Key)+`) = `+s.arg(tf.Value))
	}
	return conds
}

// alarmConds are f's filters on the alarm row a (its status too, with status), each
// written "(v IS NULL OR column = v)", never an index condition: a generic plan on
// tables without statistics otherwise takes alarms by an index on status and joins the
// page to it, not the page's alarms by id.
func (e *Engine[T]) alarmConds(s *stmt, f ports.ListFilter, status bool) []string {
	var conds []string
	opt := func(column, op string, v any, typ string) string {
		return `(` + e.Tags.Cast(s.arg(v), typ) + ` IS NULL OR ` + column + ` ` + op + ` ` + s.arg(v) + `)`
	}
	if status && f.Status != "" {
		conds = append(conds, opt(`a.status`, `=`, string(f.Status), "text"))
	}
	if f.Kind != "" {
		conds = append(conds, opt(`a.kind`, `=`, string(f.Kind), "text"))
	}
	if f.LabelPrefix != "" {
		conds = append(conds, e.Tags.LabelPrefix("a.label", f.LabelPrefix, s.arg))
	}
	if !f.FailedSince.IsZero() {
		conds = append(conds, opt(`a.updated_at`, `>=`, e.TimeArg(f.FailedSince), "timestamptz"))
	}
	return conds
}

// statusTagPage is the page of a filter with tags, one owner and a status, that walks
// the owner's alarms of that status backwards from the cursor through the (owner,
// status, id) index, in the list's order, and checks every pair on each by one
// primary-key lookup in alarm_tags. The status is an argument, as in the owner's status
// page: a generic plan cannot then take the rare-status index (status, id), whose
// predicate names statuses, and walk every owner's alarms of the status.
func (e *Engine[T]) statusTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	s := stmt{param: e.Tags.Param}
	conds := []string{`a.owner = ` + s.arg(f.Scope.Owner()), `a.status = ` + s.arg(string(f.Status))}
	if after != "" {
		conds = append(conds, `a.id < `+s.arg(after))
	}
	conds = append(conds, pairConds(&s, `a.id`, f.Tags)...)
	conds = append(conds, e.alarmConds(&s, f, false)...)
	q := `SELECT ` + sqlrow.Qualified("a", sqlrow.AlarmColumns) + ` FROM ` + e.Tags.StatusWalk + ` WHERE ` +
		strings.Join(conds, ` AND `) + ` ORDER BY a.id DESC LIMIT ` + s.arg(limit+1)
	return q, s.args
}

// TagPage is the statement and arguments of the page of f (with tags) that walks its
// first pair, for the plan tests; StatusTagPage is the one that walks f's status.
// List runs one of them (tagPage).
func (e *Engine[T]) TagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return e.pairTagPage(f, after, limit)
}

// StatusTagPage: see TagPage.
func (e *Engine[T]) StatusTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return e.statusTagPage(f, after, limit)
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

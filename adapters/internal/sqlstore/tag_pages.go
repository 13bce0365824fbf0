package sqlstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TagWalk is the most entries of its first pair's index (alarm_tags_filter) a page of
// a tag filter with other conditions reads (walkTagPage), however few of the pair's
// alarms match: each entry costs a primary-key lookup of its alarm, so a page costs at
// most about what five default pages of alarms do. It is above ports.MaxListLimit, so a
// page of any size whose walked alarms all match still fills.
const TagWalk = 512

// TagWalkFor is the walk of a page of limit alarms: 16 entries per alarm asked for, a
// power of two from 64 to TagWalk (so a default page of 100 walks TagWalk, and the
// statement is one of four texts). A small page then pays for a small walk, the bound's
// read included, and still fills where one alarm in 16 of the pair's matches.
func TagWalkFor(limit int) int {
	w := 64
	for w < 16*limit && w < TagWalk {
		w *= 2
	}
	return w
}

// tagPage is the page of a filter with tags, and whether it is walkTagPage's
// (readWalk reads it): statusTagPage when f names one owner and a rare status
// (walkStatusFirst); pairTagPage when f's only condition is its one pair, so that every
// entry the walk passes matches and it stops after the page; else walkTagPage.
func (e *Engine[T]) tagPage(f ports.ListFilter, after string, limit int) (q string, args []any, walked bool) {
	switch {
	case walkStatusFirst(f):
		q, args = e.statusTagPage(f, after, limit)
	case len(f.Tags) == 1 && f.Status == "" && f.Kind == "" && f.LabelPrefix == "" && f.FailedSince.IsZero():
		q, args = e.pairTagPage(f, after, limit)
	default:
		q, args = e.walkTagPage(f, after, limit)
		walked = true
	}
	return q, args, walked
}

// walkStatusFirst says whether a tag page of f walks the owner's alarms of f's status
// rather than the alarms of its first pair: when the scope is one owner and the status
// is one a healthy owner has few alarms of (failed, paused, cancelled: the statuses
// the stores' rare-status indexes hold). A page then costs the owner's alarms of that
// status it passes over, where the pair's walk would pass over TagWalk alarms of a
// common tag per page to find the few of that status. For active and fired (most
// alarms), the pair is the rarer of the two, and its walk (bounded) is kept.
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

// firstPair is the conditions, on the alarm_tags row alias, that walk f's first pair
// in f's scope from the cursor: with one owner, a range of alarm_tags_filter in id
// order. Across owners the walk has no owner to start from, and the port allows such a
// page the cost of the pair's entries of every owner.
func firstPair(s *stmt, alias string, f ports.ListFilter, after string) []string {
	var conds []string
	if !f.Scope.IsAnyOwner() {
		conds = append(conds, alias+`.owner = `+s.arg(f.Scope.Owner()))
	}
	conds = append(conds, alias+`.tag_key = `+s.arg(f.Tags[0].Key), alias+`.tag_value = `+s.arg(f.Tags[0].Value))
	if after != "" {
		conds = append(conds, alias+`.alarm_id < `+s.arg(after))
	}
	return conds
}

// pairTagPage is the page of a filter with tags that walks its first pair: it walks
// alarm_tags_filter for the owner's first pair backwards from the cursor (the index
// holds the alarm id last, so the walk is in the list's order), checks every other pair
// by the alarm's primary key in alarm_tags, joins the alarm by its own and checks the
// other filters on it, and stops after the page: it costs the first pair's alarms it
// passes over. tagPage takes it only when each of them matches.
func (e *Engine[T]) pairTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	s := stmt{param: e.Tags.Param}
	conds := firstPair(&s, "t", f, after)
	conds = append(conds, pairConds(&s, `t.alarm_id`, f.Tags[1:])...)
	conds = append(conds, e.alarmConds(&s, f, true)...)
	q := `SELECT ` + sqlrow.Qualified("a", sqlrow.AlarmColumns) + ` FROM ` + e.Tags.Join + ` WHERE ` +
		strings.Join(conds, ` AND `) + ` ORDER BY t.alarm_id DESC LIMIT ` + s.arg(limit+1)
	return q, s.args
}

// walkTagPage is pairTagPage's walk stopped after TagWalkFor(limit) entries of the
// index: its lower bound is the last of them from the cursor (tagEdge, read from the index
// alone; the empty string when fewer are left), a bound of the walk's index range. Its
// rows are the page's alarms, at most limit+1 as pairTagPage's, and the alarm of the
// walk's last entry, the edge, matching or not (it is the last row, which the limit
// leaves out only when the page is full): columns hit and edge say which each row is,
// and the next page goes on after the edge (readWalk). One statement, so the bound and
// the walk see the same entries, whatever is written meanwhile.
func (e *Engine[T]) walkTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	s := stmt{param: e.Tags.Param}
	// Arguments bind in the order of the text ("?"), so each piece is written where it
	// stands: a subquery's arguments are bound again wherever it is repeated.
	match := func() string {
		conds := append(pairConds(&s, `t.alarm_id`, f.Tags[1:]), e.alarmConds(&s, f, true)...)
		if len(conds) == 0 {
			return `1 = 1`
		}
		return strings.Join(conds, ` AND `)
	}
	// The bound is read once: as a one-row table joined first (BoundFirst), or as a
	// materialized CTE that each comparison reads as a scalar subquery (a subquery
	// written in place runs once per place, each an index walk of TagWalk entries).
	q, bound := ``, func() string { return `(SELECT bound FROM w)` }
	if e.Tags.BoundFirst != "" {
		bound = func() string { return `w.bound` }
	} else {
		q = `WITH w AS MATERIALIZED (SELECT COALESCE(` + tagEdge(&s, f, after, TagWalkFor(limit)) + `, '') AS bound) `
	}
	// Every row but the edge passed match in WHERE: hit checks the edge alone.
	q += `SELECT ` + sqlrow.Qualified("a", sqlrow.AlarmColumns) + `, CASE WHEN t.alarm_id <> ` + bound() + ` THEN 1 WHEN ` +
		match() + ` THEN 1 ELSE 0 END AS hit, ` +
		`CASE WHEN t.alarm_id = ` + bound() + ` THEN 1 ELSE 0 END AS edge FROM `
	if e.Tags.BoundFirst != "" {
		q += `(SELECT COALESCE(` + tagEdge(&s, f, after, TagWalkFor(limit)) + `, '') AS bound) w ` + e.Tags.BoundFirst + ` `
	}
	conds := firstPair(&s, "t", f, after)
	conds = append(conds, `t.alarm_id >= `+bound(), `((`+match()+`) OR t.alarm_id = `+bound()+`)`)
	q += e.Tags.Join + ` WHERE ` + strings.Join(conds, ` AND `) + ` ORDER BY t.alarm_id DESC LIMIT ` + s.arg(limit+1)
	return q, s.args
}

// tagEdge is the scalar subquery of the walk-th entry of f's first pair from the
// cursor, NULL when fewer are left: an index-only walk of walk entries.
func tagEdge(s *stmt, f ports.ListFilter, after string, walk int) string {
	return `(SELECT e.alarm_id FROM alarm_tags e WHERE ` + strings.Join(firstPair(s, "e", f, after), ` AND `) +
		` ORDER BY e.alarm_id DESC LIMIT 1 OFFSET ` + strconv.Itoa(walk-1) + `)`
}

// readWalk runs q, a walkTagPage statement, with the rows' tags (tagged), and returns
// the page and the next page's cursor: after the page's last alarm when more than
// limit matched, else after the walk's last entry when the walk was cut there (the
// page may then hold fewer than limit alarms, or none), else "".
func (e *Engine[T]) readWalk(ctx context.Context, limit int, q string, args ...any) ([]domain.Alarm, string, error) {
	rows, err := e.Read.Query(ctx, e.tagged(q, ` ORDER BY r.id DESC`), args...)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	defer rows.Close()
	sized := newSizedRows(rows)
	c := &tagColumn{Rows: sized, row: sized, walked: true}
	read, err := e.ScanAlarms(c, limit+1)
	if err == nil {
		err = c.setTags(read)
	}
	if err != nil {
		return nil, "", e.mapError(err)
	}
	matched, edge := read[:0], ""
	for i, a := range read {
		if c.edges[i] {
			edge = a.ID
		}
		if c.hits[i] {
			matched = append(matched, a)
		}
	}
	alarms, next := page.Cut(matched, limit)
	switch {
	case next != "":
	case sized.cut: // ended for its size: go on after the last row read
		next = ports.EncodeListCursor(read[len(read)-1].ID)
	case edge != "":
		next = ports.EncodeListCursor(edge)
	}
	return alarms, next, nil
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

// TagPage, WalkTagPage and StatusTagPage are the statements and arguments of the three
// pages of f (with tags) tagPage chooses between, for the plan tests: the walk of the
// first pair to the page's end, the walk of at most TagWalk of its entries, and the
// walk of f's status.
func (e *Engine[T]) TagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return e.pairTagPage(f, after, limit)
}

// WalkTagPage: see TagPage.
func (e *Engine[T]) WalkTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return e.walkTagPage(f, after, limit)
}

// StatusTagPage: see TagPage.
func (e *Engine[T]) StatusTagPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return e.statusTagPage(f, after, limit)
}

package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// textsDB records the texts of the statements run on it and returns no rows.
type textsDB struct{ texts map[string]bool }

func (d textsDB) Exec(_ context.Context, q string, _ ...any) (int64, error) {
	d.texts[q] = true
	return 0, nil
}

func (d textsDB) QueryRow(context.Context, string, ...any) sqlrow.Scanner { return errRow{nil} }

func (d textsDB) Query(_ context.Context, q string, _ ...any) (Rows, error) {
	d.texts[q] = true
	return noRows{}, nil
}

type noRows struct{}

func (noRows) Next() bool        { return false }
func (noRows) Scan(...any) error { return nil }
func (noRows) Err() error        { return nil }
func (noRows) Close()            {}

// The tag statements of any number of alarms are a few texts, so that a store can keep
// each prepared: an IN list padded to a power of two, INSERTs cut into InsertPieces.
func TestTagStatementsAreFewTexts(t *testing.T) {
	for _, param := range []func(int) string{
		func(int) string { return "?" },
		func(i int) string { return "$" + strconv.Itoa(i) },
	} {
		e := &Engine[int]{Tags: TagSQL{Param: param}}
		reads, deletes, inserts := textsDB{map[string]bool{}}, textsDB{map[string]bool{}}, textsDB{map[string]bool{}}
		ctx := context.Background()
		for n := 1; n <= 600; n++ {
			as := make([]domain.Alarm, n)
			ids := make([]string, n)
			for i := range as {
				ids[i] = fmt.Sprintf("a%d", i)
				as[i] = domain.Alarm{ID: ids[i], Owner: "o", Tags: map[string]string{"k": "v"}}
			}
			if err := e.withTags(ctx, reads, as); err != nil {
				t.Fatal(err)
			}
			if err := e.deleteTags(ctx, deletes, ids); err != nil {
				t.Fatal(err)
			}
			if err := e.insertTags(ctx, inserts, as); err != nil {
				t.Fatal(err)
			}
		}
		// 1..256 ids: 9 padded sizes; rows: 9 powers of two to 256 and 7 remainders.
		if len(reads.texts) > 9 || len(deletes.texts) > 9 || len(inserts.texts) > 16 {
			t.Errorf("%s: %d read, %d delete and %d insert texts for 1..600 alarms; want at most 9, 9 and 16",
				param(1), len(reads.texts), len(deletes.texts), len(inserts.texts))
		}
	}
}

// An inline tags column goes before the statement's own FROM, not a subquery's in its
// select list.
func TestSelectEnd(t *testing.T) {
	for q, want := range map[string]string{
		`SELECT a.id FROM alarms a`: `SELECT a.id`,
		`SELECT a.id, CASE WHEN (SELECT x.v FROM alarm_tags x WHERE x.k = ?) = ? THEN 1 ELSE 0 END AS hit FROM alarms a`: `SELECT a.id, CASE WHEN (SELECT x.v FROM alarm_tags x WHERE x.k = ?) = ? THEN 1 ELSE 0 END AS hit`,
		`SELECT 1`: `SELECT 1`,
	} {
		if got := q[:selectEnd(q)]; got != want {
			t.Errorf("select list of %q = %q, want %q", q, got, want)
		}
	}
}

// A small page walks a small range of its pair (its bound's read included), a default
// or larger page TagWalk entries, in one of four statement texts; a page still fills
// where one alarm of the pair in 16 matches.
func TestTagWalkFor(t *testing.T) {
	for _, c := range []struct{ limit, want int }{
		{1, 64}, {4, 64}, {5, 128}, {10, 256}, {16, 256}, {17, 512}, {ports.DefaultListLimit, TagWalk}, {ports.MaxListLimit, TagWalk},
	} {
		if got := TagWalkFor(c.limit); got != c.want {
			t.Errorf("TagWalkFor(%d) = %d, want %d", c.limit, got, c.want)
		}
		if got := TagWalkFor(c.limit); got < min(16*c.limit, TagWalk) {
			t.Errorf("TagWalkFor(%d) = %d walks fewer than 16 entries per alarm asked for", c.limit, got)
		}
	}
}

// errRow is a row that fails with err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

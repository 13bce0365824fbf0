package sqlrow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// CalendarColumns is the column list every calendar read selects, in ScanCalendar's
// order (migration 00013).
const CalendarColumns = `owner, name, timezone, exclusions, created_at, updated_at`

// exclusionsJSON is the exclusions column: a calendar's lists, read and written whole,
// never queried inside. Each list is always present, so what comes back is what went in
// (an empty list stays empty, never null).
type exclusionsJSON struct {
	Dates    []string    `json:"dates"`
	Weekdays []int       `json:"weekdays"`
	Ranges   []rangeJSON `json:"ranges"`
}

type rangeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// EncodeExclusions is c's exclusions column.
func EncodeExclusions(c domain.Calendar) string {
	j := exclusionsJSON{Dates: jsonio.Array(c.ExcludeDates), Weekdays: jsonio.Array(c.ExcludeWeekdays),
		Ranges: make([]rangeJSON, len(c.ExcludeRanges))}
	for i, r := range c.ExcludeRanges {
		j.Ranges[i] = rangeJSON(r)
	}
	b, err := json.Marshal(j)
	if err != nil {
		panic(err) // strings and integers only: cannot fail
	}
	return string(b)
}

// ScanCalendar reads one row of CalendarColumns; toTime is as for NewAlarms.
func ScanCalendar[T any](r Scanner, toTime func(T) time.Time) (domain.Calendar, error) {
	var (
		c                domain.Calendar
		text             string
		created, updated T
	)
	if err := r.Scan(&c.Owner, &c.Name, &c.Timezone, &text, &created, &updated); err != nil {
		return domain.Calendar{}, err
	}
	var j exclusionsJSON
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		return domain.Calendar{}, fmt.Errorf("sqlrow: stored calendar %s/%s: %w", c.Owner, c.Name, err)
	}
	c.ExcludeDates, c.ExcludeWeekdays = orEmpty(j.Dates), orEmpty(j.Weekdays)
	c.ExcludeRanges = make([]domain.DateRange, len(j.Ranges))
	for i, r := range j.Ranges {
		c.ExcludeRanges[i] = domain.DateRange(r)
	}
	c.CreatedAt, c.UpdatedAt = toTime(created), toTime(updated)
	return c, nil
}

func orEmpty[E any](s []E) []E {
	if s == nil {
		return []E{}
	}
	return s
}

// CalendarLinks is the argument of the statements that write the index from calendars
// to the series naming them (sqlstore.Statements.LinkCalendars): a JSON array of
// [owner, calendar, series_id] rows, one statement whatever the count.
func CalendarLinks(owner, seriesID string, calendars []string, into [][3]string) [][3]string {
	for _, c := range calendars {
		into = append(into, [3]string{owner, c, seriesID})
	}
	return into
}

// EncodeLinks is the JSON text of rows.
func EncodeLinks(rows [][3]string) string {
	b, err := json.Marshal(rows)
	if err != nil {
		panic(err)
	}
	return string(b)
}

package transfer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/chronoshq/chronos/domain"
)

// maxLine bounds one line: an alarm's payload and texts are far smaller.
const maxLine = 64 << 20

// record is one parsed line: exactly one of its fields is set, as its type says.
type record struct {
	line     int
	typ      string
	header   *header
	state    *stateRecord
	endpoint *domain.Endpoint
	token    *domain.Token
	calendar *domain.Calendar
	alarm    *domain.Alarm
	event    *domain.Event
	end      *end
}

// reader parses an export file line by line, checking its shape as it goes: a header
// of a known format first, an end line last and nothing after it. Errors name the line
// and the field, never a value (the file holds secrets).
type reader struct {
	sc     *bufio.Scanner
	line   int
	seen   Counts // records read so far, by type
	header *header
	ended  bool
}

func newReader(r io.Reader) *reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
	return &reader{sc: sc}
}

// next returns the next record, or io.EOF after the end line (and the end of input).
func (r *reader) next() (record, error) {
	for r.sc.Scan() {
		r.line++
		raw := bytes.TrimSpace(r.sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if r.ended {
			return record{}, fmt.Errorf("line %d: a record after the end line", r.line)
		}
		rec, err := r.parse(raw)
		if err != nil {
			return record{}, fmt.Errorf("line %d: %w", r.line, err)
		}
		return rec, nil
	}
	if err := r.sc.Err(); err != nil {
		return record{}, fmt.Errorf("line %d: reading: %w", r.line+1, err)
	}
	switch {
	case r.header == nil:
		return record{}, errors.New("the input is empty: no header line")
	case !r.ended:
		return record{}, fmt.Errorf("the input ends at line %d without its end line: it was cut short", r.line)
	}
	return record{}, io.EOF
}

func (r *reader) parse(raw []byte) (record, error) {
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return record{}, fmt.Errorf("not a JSON object: %v", syntaxOnly(err))
	}
	rec := record{line: r.line, typ: t.Type}
	if r.header == nil && t.Type != typeHeader {
		return rec, fmt.Errorf("the first line must be the header (type %q), got type %q: is this a chronos export?", typeHeader, t.Type)
	}
	switch t.Type {
	case typeHeader:
		if r.header != nil {
			return rec, errors.New("a second header")
		}
		var h header
		if err := strict(raw, &h); err != nil {
			return rec, err
		}
		if h.Format < oldestFormat || h.Format > FormatVersion {
			return rec, fmt.Errorf("format %d is not one this chronos reads (%d to %d): import with the chronos version that exported it, or a later one",
				h.Format, oldestFormat, FormatVersion)
		}
		r.header, rec.header = &h, &h
	case typeState:
		var s stateRecord
		if err := strict(raw, &s); err != nil {
			return rec, err
		}
		if s.Name == "" {
			return rec, errors.New("state: name is required")
		}
		rec.state = &s
		r.seen.States++
	case typeEndpoint:
		var er endpointRecord
		if err := strict(raw, &er); err != nil {
			return rec, err
		}
		e, err := er.endpoint()
		if err != nil {
			return rec, err
		}
		rec.endpoint = &e
		r.seen.Endpoints++
	case typeToken:
		var tr tokenRecord
		if err := strict(raw, &tr); err != nil {
			return rec, err
		}
		tok, err := tr.token()
		if err != nil {
			return rec, err
		}
		rec.token = &tok
		r.seen.Tokens++
	case typeCalendar:
		if r.header.Format < 2 {
			return rec, fmt.Errorf("a calendar record in a format %d file, which has none: the file is damaged", r.header.Format)
		}
		var cr calendarRecord
		if err := strict(raw, &cr); err != nil {
			return rec, err
		}
		c, err := cr.calendar()
		if err != nil {
			return rec, err
		}
		rec.calendar = &c
		r.seen.Calendars++
	case typeAlarm:
		var ar alarmRecord
		if err := strict(raw, &ar); err != nil {
			return rec, err
		}
		if ar.Series != nil && ar.Series.ExcludeCalendars != nil && r.header.Format < 2 {
			return rec, fmt.Errorf("alarm %s: series.exclude_calendars in a format %d file, which has none: the file is damaged", ar.ID, r.header.Format)
		}
		a, err := ar.alarm()
		if err != nil {
			return rec, err
		}
		rec.alarm = &a
		r.seen.Alarms++
	case typeEvent:
		var evr eventRecord
		if err := strict(raw, &evr); err != nil {
			return rec, err
		}
		if evr.Receipt != nil && r.header.Format < 3 {
			return rec, fmt.Errorf("event of alarm %s: a receipt in a format %d file, which has none: the file is damaged", evr.AlarmID, r.header.Format)
		}
		e, err := evr.event()
		if err != nil {
			return rec, err
		}
		rec.event = &e
		r.seen.Events++
	case typeEnd:
		var e end
		if err := strict(raw, &e); err != nil {
			return rec, err
		}
		if e.Counts != r.seen {
			return rec, fmt.Errorf("the end line counts %+v, but the file holds %+v: it is damaged", e.Counts, r.seen)
		}
		r.ended, rec.end = true, &e
	default:
		return rec, fmt.Errorf("unknown record type %q", t.Type)
	}
	return rec, nil
}

// strict decodes one record, refusing fields this version does not know: a record it
// would half understand is not imported.
func strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return syntaxOnly(err)
	}
	return nil
}

// syntaxOnly keeps a decoding error's kind and position but not the text it quotes,
// which may be a secret.
func syntaxOnly(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Type == reflect.TypeFor[[]byte]() {
			return fmt.Errorf("field %q: not base64", typ.Field)
		}
		return fmt.Errorf("field %q: not a JSON %s", typ.Field, typ.Type)
	}
	return err // unknown field "x": names the field only
}

// Verify reads a whole export and checks it as Import would before writing anything:
// every record valid, the end line present and its counts right. It returns the
// header's source and the counts.
func Verify(r io.Reader) (store string, counts Counts, err error) {
	rd := newReader(r)
	for {
		if _, err := rd.next(); err == io.EOF {
			return rd.header.Store, rd.seen, nil
		} else if err != nil {
			return "", rd.seen, err
		}
	}
}

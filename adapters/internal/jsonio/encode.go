package jsonio

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// Append encodes v onto buf without escaping <, > and & (this is an API, not HTML,
// and clients should get their strings back as they sent them).
func Append(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends every value with a newline
	return nil
}

// Array is s as it must encode: an empty array when there is none, never null.
func Array[E any](s []E) []E {
	if s == nil {
		return []E{}
	}
	return s
}

// Object writes one JSON object member by member, in the order they are added. It
// exists because encoding/json re-compacts a json.RawMessage (and every Marshaler's
// output) while encoding, which would rewrite the bytes of a stored payload; members
// added with raw are copied as they are. The first error sticks and later calls do
// nothing.
type Object struct {
	buf     *bytes.Buffer
	members int
	err     error
}

// BeginObject starts an object on buf; End closes it.
func BeginObject(buf *bytes.Buffer) *Object {
	buf.WriteByte('{')
	return &Object{buf: buf}
}

func (o *Object) key(name string) bool {
	if o.err != nil {
		return false
	}
	if o.members > 0 {
		o.buf.WriteByte(',')
	}
	o.members++
	appendString(o.buf, name)
	o.buf.WriteByte(':')
	return true
}

// Str adds a string member; Num an integer; Time an instant (null when zero). They
// write what Value would, without encoding/json's reflection: the alarm view, written
// with them, is most of what a batch answer costs.
func (o *Object) Str(name, v string) {
	if o.key(name) {
		appendString(o.buf, v)
	}
}

func (o *Object) Num(name string, v int) {
	if o.key(name) {
		o.buf.Write(strconv.AppendInt(o.buf.AvailableBuffer(), int64(v), 10))
	}
}

func (o *Object) Time(name string, v time.Time) {
	if o.key(name) {
		appendTime(o.buf, v)
	}
}

// NumOrNull and StrOrNull add v, or null when !ok (a value the alarm does not have).
func (o *Object) NumOrNull(name string, v int, ok bool) {
	if !ok {
		o.Raw(name, Null)
		return
	}
	o.Num(name, v)
}

func (o *Object) StrOrNull(name, v string, ok bool) {
	if !ok {
		o.Raw(name, Null)
		return
	}
	o.Str(name, v)
}

// Null is the JSON null.
var Null = []byte("null")

// appendString writes s as a JSON string exactly as Append would (no HTML
// escaping): directly when every byte is printable ASCII other than the quote and the
// backslash, through encoding/json otherwise (control characters, U+2028, invalid
// UTF-8 need its rules).
func appendString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			_ = Append(buf, s) // a string always encodes
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// appendTime writes t as the API shows an instant (Time).
func appendTime(buf *bytes.Buffer, t time.Time) {
	if t.IsZero() {
		buf.WriteString("null")
		return
	}
	b := buf.AvailableBuffer()
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	buf.Write(append(b, '"'))
}

// Value adds a member encoded with encoding/json.
func (o *Object) Value(name string, v any) {
	if o.key(name) {
		o.err = Append(o.buf, v)
	}
}

// Raw adds a member whose value is already JSON, copied byte for byte. The caller
// vouches that it is one valid JSON value.
func (o *Object) Raw(name string, value []byte) {
	if o.key(name) {
		o.buf.Write(value)
	}
}

// End closes the object and reports the first error.
func (o *Object) End() error {
	if o.err == nil {
		o.buf.WriteByte('}')
	}
	return o.err
}

// Time is an instant as the API shows it: RFC 3339 in UTC with nanoseconds, or null
// when unset.
type Time time.Time

// MarshalJSON writes the instant as Object.Time does.
func (t Time) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	appendTime(&buf, time.Time(t))
	return buf.Bytes(), nil
}

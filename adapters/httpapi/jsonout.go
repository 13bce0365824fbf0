package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Responses are built in memory and written in one go, so a failure while encoding
// still gets a clean error response instead of half a body.

// writeJSON answers v, encoded with encoding/json.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := appendJSON(&buf, v); err != nil {
		// Only the adapter's own view types reach here, and they always encode.
		panic(fmt.Sprintf("httpapi: encoding a %T response: %v", v, err))
	}
	buf.WriteByte('\n')
	writeBody(w, status, buf.Bytes())
}

// writeBody answers an already encoded JSON document.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that hung up is no error of ours
}

// appendJSON encodes v onto buf without escaping <, > and & (this is an API, not HTML,
// and clients should get their strings back as they sent them).
func appendJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends every value with a newline
	return nil
}

// object writes one JSON object member by member, in the order they are added. It
// exists because encoding/json re-compacts a json.RawMessage (and every Marshaler's
// output) while encoding, which would rewrite the bytes of a stored payload; members
// added with raw are copied as they are. The first error sticks and later calls do
// nothing.
type object struct {
	buf     *bytes.Buffer
	members int
	err     error
}

func beginObject(buf *bytes.Buffer) *object {
	buf.WriteByte('{')
	return &object{buf: buf}
}

func (o *object) key(name string) bool {
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

// str adds a string member; num an integer; time an instant (null when zero). They
// write what value would, without encoding/json's reflection: the alarm view is most of
// what a batch answer costs.
func (o *object) str(name, v string) {
	if o.key(name) {
		appendString(o.buf, v)
	}
}

func (o *object) num(name string, v int) {
	if o.key(name) {
		o.buf.Write(strconv.AppendInt(o.buf.AvailableBuffer(), int64(v), 10))
	}
}

func (o *object) time(name string, v time.Time) {
	if o.key(name) {
		appendTime(o.buf, v)
	}
}

// numOrNull and strOrNull add v, or null when !ok (a value the alarm does not have).
func (o *object) numOrNull(name string, v int, ok bool) {
	if !ok {
		o.raw(name, null)
		return
	}
	o.num(name, v)
}

func (o *object) strOrNull(name, v string, ok bool) {
	if !ok {
		o.raw(name, null)
		return
	}
	o.str(name, v)
}

var null = []byte("null")

// appendString writes s as a JSON string exactly as appendJSON would (no HTML
// escaping): directly when every byte is printable ASCII other than the quote and the
// backslash, through encoding/json otherwise (control characters, U+2028, invalid
// UTF-8 need its rules).
func appendString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			_ = appendJSON(buf, s) // a string always encodes
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// appendTime writes t as jsonTime does.
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

// value adds a member encoded with encoding/json.
func (o *object) value(name string, v any) {
	if o.key(name) {
		o.err = appendJSON(o.buf, v)
	}
}

// raw adds a member whose value is already JSON, copied byte for byte. The caller
// vouches that it is one valid JSON value.
func (o *object) raw(name string, value []byte) {
	if o.key(name) {
		o.buf.Write(value)
	}
}

// end closes the object and reports the first error.
func (o *object) end() error {
	if o.err == nil {
		o.buf.WriteByte('}')
	}
	return o.err
}

// jsonTime is an instant as the API shows it: RFC 3339 in UTC with nanoseconds, or
// null when unset.
type jsonTime time.Time

func (t jsonTime) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + tt.UTC().Format(time.RFC3339Nano) + `"`), nil
}

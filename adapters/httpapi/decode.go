package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"
)

// readBody returns the request body, refusing a declared Content-Type other than JSON
// (415) and a body over the limit (413).
func (a *api) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return a.readBodyLimit(w, r, a.maxBody)
}

// readBodyLimit is readBody with a limit of its own (the batch endpoint's).
func (a *api) readBodyLimit(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return nil, &apiError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
				Message: fmt.Sprintf("Content-Type %q is not supported; send application/json", ct)}
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, err
		}
		return nil, badRequest("", "reading the request body: "+err.Error())
	}
	return body, nil
}

// readObject reads the request body (readBody's limits) and decodes it strictly into
// dst (decodeObject). On an error it answers it and returns false.
func (a *api) readObject(w http.ResponseWriter, r *http.Request, dst any) bool {
	body, err := a.readBody(w, r)
	if err == nil {
		err = decodeObject(body, dst)
	}
	if err != nil {
		a.writeError(w, r, err)
		return false
	}
	return true
}

// decodeObject decodes body, which must be exactly one JSON object, into dst (a pointer
// to a struct with json tags). It is stricter than encoding/json on purpose: a field is
// known only when its name matches a tag exactly (encoding/json would accept "Label"
// for "label"), and anything after the object is refused rather than ignored.
func decodeObject(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return badRequest("", "the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var whole json.RawMessage
	if err := dec.Decode(&whole); err != nil {
		return syntaxError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("", "unexpected data after the JSON object")
	}
	if whole[0] != '{' {
		return badRequest("", "the request body must be a JSON object")
	}
	return decodeValidObject(whole, dst)
}

// decodeValidObject is decodeObject for obj already known to be one valid JSON object
// (an item of a batch, cut from a body decodeObject accepted): it skips the pass that
// checks the syntax, a third of the decoding of a batch's items.
func decodeValidObject(obj json.RawMessage, dst any) error {
	whole := obj
	if name, ok := unknownField(whole, dst); !ok {
		return badRequest(name, fmt.Sprintf("unknown field %q", name))
	}
	if err := json.Unmarshal(whole, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return badRequest(typeErr.Field, typeMessage(typeErr.Type, typeErr.Value))
		}
		return syntaxError(err)
	}
	return nil
}

func syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badRequest("", fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: ")))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return badRequest("", "malformed JSON: the body ends in the middle of a value")
	}
	return badRequest("", "malformed JSON: "+err.Error())
}

// unknownField returns the first member of the object whose name is not a json tag of
// dst's struct type, in document order. obj is a valid JSON object.
func unknownField(obj json.RawMessage, dst any) (string, bool) {
	known := fieldNames(reflect.TypeOf(dst).Elem())
	unknown, found := "", false
	eachKey(obj, func(name string) bool {
		if !known[name] {
			unknown, found = name, true // "" is a name too, and never a known one
		}
		return !found
	})
	return unknown, !found
}

// eachKey calls fn with the name of each member of obj, a valid JSON object, in
// document order, until fn returns false. It skips the values without decoding them: a
// json.Decoder walking the tokens was a third of a batch's decoding.
func eachKey(obj []byte, fn func(string) bool) {
	eachMember(obj, func(name string, _ []byte) bool { return fn(name) })
}

// eachMember is eachKey with each member's value, as its bytes in obj.
func eachMember(obj []byte, fn func(name string, value []byte) bool) {
	i := skipSpace(obj, bytes.IndexByte(obj, '{')+1)
	for i < len(obj) && obj[i] == '"' {
		end := stringEnd(obj, i)
		name := string(obj[i+1 : end-1])
		if !plainASCII(name) { // escapes or non-ASCII: let encoding/json read it, its way
			_ = json.Unmarshal(obj[i:end], &name)
		}
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // the colon
		v := valueEnd(obj, i)
		if !fn(name, obj[i:v]) {
			return
		}
		i = skipSpace(obj, v)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// eachElement calls fn with each element of arr, a valid JSON array, as its bytes.
func eachElement(arr []byte, fn func(elem []byte)) {
	i := skipSpace(arr, bytes.IndexByte(arr, '[')+1)
	for i < len(arr) && arr[i] != ']' {
		v := valueEnd(arr, i)
		fn(arr[i:v])
		i = skipSpace(arr, v)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
}

// plainASCII reports a string with neither a backslash nor a byte outside ASCII.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just after the string starting (with its quote) at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the index just after the value starting at i.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++ // a number, true, false or null
	}
	return i
}

// fieldNames are the json names of a struct type's fields, worked out once per type.
func fieldNames(t reflect.Type) map[string]bool {
	if names, ok := fieldNamesOf.Load(t); ok {
		return names.(map[string]bool)
	}
	names := make(map[string]bool, t.NumField())
	addFieldNames(t, names)
	fieldNamesOf.Store(t, names)
	return names
}

// addFieldNames adds t's json names to names, and those of its embedded structs, whose
// fields encoding/json promotes.
func addFieldNames(t reflect.Type, names map[string]bool) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFieldNames(f.Type, names)
			continue
		}
		if name != "" && name != "-" {
			names[name] = true
		}
	}
}

var fieldNamesOf sync.Map // reflect.Type -> map[string]bool, read-only once stored

// typeMessage says what a field of Go type t accepts, in JSON terms, and what came.
// value is UnmarshalTypeError.Value: a JSON kind ("string", "array"), or for a number
// that does not fit, "number <literal>".
func typeMessage(t reflect.Type, value string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got, isNumber := strings.CutPrefix(value, "number ")
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if isNumber {
			return "must be an integer in range, got " + got
		}
		return "must be an integer, got " + value
	case reflect.Float32, reflect.Float64:
		if isNumber {
			return "is out of range: " + got
		}
		return "must be a number, got " + value
	case reflect.String:
		return "must be a string, got " + value
	case reflect.Bool:
		return "must be true or false, got " + value
	default:
		return "must be a JSON " + t.Kind().String() + ", got " + value
	}
}

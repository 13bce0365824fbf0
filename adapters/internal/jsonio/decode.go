// Package jsonio is the HTTP API's JSON engine: a strict decoder of request objects and
// an encoder that writes responses without reflection where a response is hot, copying
// stored JSON byte for byte. The adapter turns an *Error into its error envelope.
package jsonio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error is input the decoder cannot read: malformed JSON, a body that is not one
// object, an unknown field or a value of the wrong type. Field names the offending
// member when there is one.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "invalid_request: " + e.Message
	}
	return "invalid_request: " + e.Field + ": " + e.Message
}

func refuse(field, message string) *Error { return &Error{Field: field, Message: message} }

// DecodeObject decodes body, which must be exactly one JSON object, into dst (a pointer
// to a struct with json tags). It is stricter than encoding/json on purpose: a field is
// known only when its name matches a tag exactly (encoding/json would accept "Label"
// for "label"), and anything after the object is refused rather than ignored.
func DecodeObject(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return refuse("", "the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var whole json.RawMessage
	if err := dec.Decode(&whole); err != nil {
		return syntaxError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return refuse("", "unexpected data after the JSON object")
	}
	if whole[0] != '{' {
		return refuse("", "the request body must be a JSON object")
	}
	return DecodeValidObject(whole, dst)
}

// DecodeValidObject is DecodeObject for obj already known to be one valid JSON object
// (an item of a batch, cut from a body already checked): it skips the pass that checks
// the syntax.
func DecodeValidObject(obj []byte, dst any) error {
	if err := CheckFields(obj, dst); err != nil {
		return err
	}
	if err := json.Unmarshal(obj, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return refuse(jsonPath(reflectType(dst), typeErr.Field), typeMessage(typeErr.Type, typeErr.Value))
		}
		return syntaxError(err)
	}
	return nil
}

// CheckFields refuses the first member of obj, a valid JSON object, in document order,
// whose name is not a json tag of dst's struct type.
func CheckFields(obj []byte, dst any) error {
	known := fieldNames(reflectType(dst))
	unknown, found := "", false
	eachKey(obj, func(name string) bool {
		if !known[name] {
			unknown, found = name, true // "" is a name too, and never a known one
		}
		return !found
	})
	if found {
		return refuse(unknown, fmt.Sprintf("unknown field %q", unknown))
	}
	return nil
}

func syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return refuse("", fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: ")))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return refuse("", "malformed JSON: the body ends in the middle of a value")
	}
	return refuse("", "malformed JSON: "+err.Error())
}

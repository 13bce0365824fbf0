package jsonio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// arrayType is what EachItem's member holds, for the refusal of a value that is no array.
var arrayType = reflect.TypeFor[[]json.RawMessage]()

// EachItem reads from r one JSON object whose only member is name, an array or null,
// and hands each element of that array to item as it is read, one element held at a
// time, so that a large body is never held whole (a batch of alarms). It refuses what
// DecodeObject refuses, each *Error naming the same field, in document order: a body
// that is empty or no object, a member of another name (names match exactly), a value of
// name that is no array, malformed JSON, data after the object. A repeated member
// starts the elements again, calling restart first: the last one wins, as in
// encoding/json. An error of item stops the read and is returned as it is, and so is a
// failure of r (a body over its limit).
//
// maxValue (> 0) bounds what is held at once: a member name or an element longer than
// that is refused with a *ValueTooLargeError as soon as the read passes the bound, its
// rest unread, so a body of one huge element costs no more than one of many small
// ones. 0: no bound but r's.
func EachItem(r io.Reader, name string, maxValue int64, item func(raw []byte) error, restart func()) error {
	dec := newBoundedDecoder(r, maxValue)
	dec.UseNumber() // a number token is never converted, so never out of range
	tok, err := dec.Token()
	switch {
	case err == io.EOF:
		return refuse("", "the request body is empty; send a JSON object")
	case err != nil:
		return readError(err)
	case tok != json.Delim('{'):
		return refuse("", "the request body must be a JSON object")
	}
	seen := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return readError(err)
		}
		if key != name {
			return refuse(key.(string), fmt.Sprintf("unknown field %q", key))
		}
		if seen {
			restart()
		}
		seen = true
		if err := eachElement(dec, name, item); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return readError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil && !isSyntax(err) {
			return err
		}
		return refuse("", "unexpected data after the JSON object")
	}
	return nil
}

// eachElement reads the value of member name: null, or an array whose elements go to
// item one by one.
func eachElement(dec *boundedDecoder, name string, item func(raw []byte) error) error {
	tok, err := dec.Token()
	if err != nil {
		return readError(err)
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('['):
	default:
		kind := "object"
		switch tok.(type) {
		case string:
			kind = "string"
		case json.Number:
			kind = "number"
		case bool:
			kind = "bool"
		}
		return refuse(name, typeMessage(arrayType, kind))
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return readError(err)
		}
		if err := item(raw); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing bracket
	if err != nil {
		return readError(err)
	}
	return nil
}

// readError is a read's failure: malformed JSON (the body ending before the object
// does included) as the decoder's refusal, anything else (the reader's own failure) as
// it is.
func readError(err error) error {
	switch {
	case err == io.EOF:
		return syntaxError(io.ErrUnexpectedEOF)
	case isSyntax(err):
		return syntaxError(err)
	}
	return err
}

func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
}

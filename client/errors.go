package client

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is an error the server answered: a non-2xx status with the API's error
// envelope {"error": {"code", "message", "field"}}, or one item's error in a batch.
type Error struct {
	// StatusCode is the HTTP status; 0 for the error of one item of a batch, whose
	// call as a whole succeeded.
	StatusCode int `json:"-"`
	// Code is the API's machine-readable code: "not_found", "invalid_argument",
	// "invalid_state", ... It is "" when the body was not the API's envelope (a proxy's
	// error page, say); Message then holds the start of that body.
	Code string `json:"code"`
	// Message is for people.
	Message string `json:"message"`
	// Field names the offending input ("cron_expr", "limit", "filter"), or "".
	Field string `json:"field,omitempty"`
}

// Error reads "chronos: 404 not_found: no such alarm", with the field before the
// message when there is one.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("chronos: ")
	if e.StatusCode != 0 {
		b.WriteString(strconv.Itoa(e.StatusCode))
		b.WriteByte(' ')
	}
	if e.Code != "" {
		b.WriteString(e.Code)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// maxForeignMessage bounds how much of a body that is not the API's envelope becomes
// the message: enough for a proxy's one-line complaint, not a whole HTML page.
const maxForeignMessage = 200

// parseError turns a non-2xx answer into an *Error. A body that is not the API's
// envelope still gives one, with the status and what can be read of the body.
func parseError(status int, body []byte) *Error {
	var env struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && (env.Error.Code != "" || env.Error.Message != "") {
		env.Error.StatusCode = status
		return env.Error
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > maxForeignMessage {
		msg = msg[:maxForeignMessage]
		for !utf8.ValidString(msg) { // do not cut a character in two
			msg = msg[:len(msg)-1]
		}
		msg += "..."
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &Error{StatusCode: status, Message: msg}
}

// asError returns err's *Error, if it has one.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsNotFound reports whether err says the alarm (or route) does not exist, or is not
// the caller's: the API answers both alike.
func IsNotFound(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "not_found" || e.StatusCode == http.StatusNotFound)
}

// IsUnauthenticated reports whether the token was missing, unknown or revoked (401).
func IsUnauthenticated(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "unauthenticated" || e.StatusCode == http.StatusUnauthorized)
}

// IsForbidden reports whether the token is valid but may not do this (403): an owner
// token on /admin/v1, or an admin:read token on a route that changes something.
func IsForbidden(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "forbidden" || e.StatusCode == http.StatusForbidden)
}

// IsInvalid reports whether the request was refused as malformed or out of range (400);
// the *Error's Field names the input.
func IsInvalid(err error) bool {
	e, ok := asError(err)
	if !ok {
		return false
	}
	switch e.Code {
	case "invalid", "invalid_argument", "invalid_request":
		return true
	}
	return e.StatusCode == http.StatusBadRequest
}

// IsInvalidState reports whether the action does not apply to the alarm as it is
// (409 invalid_state): pausing a once alarm, retrying one that has not failed.
func IsInvalidState(err error) bool {
	e, ok := asError(err)
	return ok && e.Code == "invalid_state"
}

// IsConflict reports any 409: invalid_state, or conflict (the write collided with data
// already stored, or another node holds the retention lease). A repeated idempotency
// key is no conflict: it answers the first alarm, deduped.
func IsConflict(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "conflict" || e.Code == "invalid_state" || e.StatusCode == http.StatusConflict)
}

// IsUnsupported reports whether the node does not do this at all (501 unsupported): a
// backup on request of a PostgreSQL or MySQL store, or of a node without --backup-dir.
// No retry helps.
func IsUnsupported(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "unsupported" || e.StatusCode == http.StatusNotImplemented)
}

// IsUnavailable reports whether the server could not reach its store (503): retrying
// later may succeed.
func IsUnavailable(err error) bool {
	e, ok := asError(err)
	return ok && (e.Code == "unavailable" || e.StatusCode == http.StatusServiceUnavailable)
}

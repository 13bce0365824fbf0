package httpapi

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/pathvar"
)

// errNoCalendar answers a calendar that is not there, or a name that cannot be one.
var errNoCalendar = &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "no such calendar"}

// pathVarsError checks every variable of the request's path ({id}, {name}, {owner})
// before any use case sees it, and returns the answer to one that nothing can have
// (empty, too long, not UTF-8, control characters such as NUL), or nil. Such bytes
// never reach the store: PostgreSQL refuses NUL and invalid UTF-8 in text, which would
// answer 500. An id or a name that cannot exist is answered as one that does not (404,
// the route's own words); an owner, or the name a PUT would create, is a 400 naming it.
func pathVarsError(r *http.Request) *apiError {
	route := mux.CurrentRoute(r)
	if route == nil {
		return nil
	}
	template, _ := route.GetPathTemplate()
	for name, value := range mux.Vars(r) {
		switch {
		case name == "owner":
			if value == "" || len(value) > maxOwnerLen || !pathvar.Printable(value) {
				return invalidArgument("owner", "must be an owner a token can have: 1 to 200 bytes of UTF-8 without control characters")
			}
		case !pathvar.Valid(value):
			if r.Method == http.MethodPut {
				return invalidArgument(name, "must be 1 to 255 bytes of UTF-8 without control characters")
			}
			return notFoundAt(template)
		}
	}
	return nil
}

// notFoundAt is the 404 of the route with this template for what its path names.
func notFoundAt(template string) *apiError {
	switch {
	case strings.Contains(template, "/tokens/"):
		return errNoToken
	case strings.Contains(template, "/endpoints/"):
		return errNoEndpoint
	case strings.Contains(template, "/calendars/"):
		return errNoCalendar
	}
	return errNoAlarm
}

package httpapi

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// apiError is an error as the client sees it. Errors the adapter raises itself (bad
// query parameters, a refused Content-Type, ...) are built as apiErrors directly;
// everything else, the JSON decoder's refusals included, is translated by toAPIError.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

func (e *apiError) Error() string {
	if e.Field == "" {
		return e.Code + ": " + e.Message
	}
	return e.Code + ": " + e.Field + ": " + e.Message
}

// badRequest is the invalid_request error for input the adapter cannot even read.
func badRequest(field, message string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: message, Field: field}
}

// invalidArgument is the error for a well-formed value the API refuses: the same code
// domain validation errors get.
func invalidArgument(field, message string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "invalid_argument", Message: message, Field: field}
}

var errNoRoute = &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "no such route"}

// errForbidden answers a valid token whose scope does not reach the route.
func errForbidden(message string) *apiError {
	return &apiError{Status: http.StatusForbidden, Code: "forbidden", Message: message}
}

// sentinels maps the portable errors to statuses; the first match wins. An empty
// message means the error's own text is fit for the client.
var sentinels = []struct {
	err     error
	status  int
	code    string
	message string
}{
	{domain.ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated", "unknown or revoked token"},
	{ports.ErrNotFound, http.StatusNotFound, "not_found", "no such alarm"},
	{domain.ErrInvalidState, http.StatusConflict, "invalid_state", ""},
	{ports.ErrConflict, http.StatusConflict, "conflict", "the request conflicts with an existing alarm"},
	{ports.ErrBusy, http.StatusConflict, "conflict", ""},
	// The store (or this node) does not do what was asked, and no retry will change
	// that: a backup on request of a PostgreSQL store, or of a node without --backup-dir.
	{ports.ErrUnsupported, http.StatusNotImplemented, "unsupported", ""},
	// Nothing was done; Retry-After says when to try again, or is left out when no retry
	// can succeed (writeError).
	{domain.ErrQuotaExceeded, http.StatusTooManyRequests, "quota_exceeded", ""},
	{domain.ErrRateLimited, http.StatusTooManyRequests, "rate_limited", ""},
	// The node runs as much of this work as it takes from everyone at once (bulk
	// calls): nothing was done; Retry-After as for a limit.
	{domain.ErrNodeBusy, http.StatusServiceUnavailable, "unavailable", ""},
	// Before the generic unavailable answer: the operator has something to fix, and a
	// client retrying at once only meets the same full disk, so its Retry-After is
	// longer (storageFullRetryAfter).
	{ports.ErrStorageFull, http.StatusServiceUnavailable, "unavailable", storageFullMessage},
}

// errNoEndpoint answers an endpoint that is not there, or a name that cannot be one.
var errNoEndpoint = &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "no such endpoint"}

// endpointError rewords the table's answers that speak of alarms for the endpoint
// routes: their not-found and conflict are an endpoint's.
func endpointError(err error) error {
	switch {
	case errors.Is(err, ports.ErrNotFound):
		return errNoEndpoint
	case errors.Is(err, ports.ErrConflict):
		return &apiError{Status: http.StatusConflict, Code: "conflict", Message: "the owner already has an endpoint of that name"}
	}
	return err
}

// Messages for failures whose detail stays in the log: it can name hosts, tables or
// driver internals that are none of the client's business.
const (
	unavailableMessage = "the store is unavailable; retry later"
	storageFullMessage = "the store's disk is full: nothing was written; retry once space is freed"
	internalMessage    = "internal error; the server logged the details"
)

// Retry-After of a 503. A store that could not be reached or did not answer in time
// may be back within a second (a failover, a restart, a burst). A full disk waits for
// an operator to free space, which takes minutes, not a second: an earlier retry only
// writes nothing again, and a fleet of clients retrying every second adds load to a
// node that can do nothing for them.
const (
	unavailableRetryAfter = "1"
	storageFullRetryAfter = "30"
)

// toAPIError is the one place an error becomes a status and a code.
func toAPIError(err error) *apiError {
	var ae *apiError
	var ve *domain.ValidationError
	var unreadable *jsonio.Error
	var tooLarge *http.MaxBytesError
	var itemTooLarge *jsonio.ValueTooLargeError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &unreadable):
		return badRequest(unreadable.Field, unreadable.Message)
	case errors.As(err, &ve):
		return invalidArgument(ve.Field, ve.Message)
	case errors.As(err, &tooLarge):
		return &apiError{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
			Message: "the request body is over the limit of " + strconv.FormatInt(tooLarge.Limit, 10) + " bytes"}
	case errors.As(err, &itemTooLarge):
		return &apiError{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large", Field: "alarms",
			Message: "an item of the batch is over the limit of " + strconv.FormatInt(itemTooLarge.Limit, 10) +
				" bytes, as a single create's body is; nothing was written"}
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			msg := s.message
			if msg == "" {
				msg = err.Error()
			}
			var le *domain.LimitError
			field := ""
			if errors.As(err, &le) {
				field = le.Field
			}
			return &apiError{Status: s.status, Code: s.code, Message: msg, Field: field}
		}
	}
	if unavailable(err) {
		return &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: unavailableMessage}
	}
	return &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: internalMessage}
}

// unavailable reports failures that say the store could not be reached or did not
// answer in time, rather than that the request or the server is wrong: retrying later
// may succeed. Stores return context errors untouched, and their drivers wrap network
// errors, so these checks see through the adapters' prefixes.
func unavailable(err error) bool {
	var netErr net.Error
	return errors.Is(err, ports.ErrUnavailable) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, context.Canceled) || // the client left; nobody reads the answer
		errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, ports.ErrSchemaVersion) || // a migration is pending or ahead
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &netErr)
}

// writeError answers err in the error envelope, logging what the client is not told.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err)
	switch ae.Status {
	case http.StatusServiceUnavailable:
		// A node busy with bulk calls is a limit, not a failure: nothing to log.
		if !errors.Is(err, context.Canceled) && !errors.Is(err, domain.ErrNodeBusy) {
			a.log.Warn("store unavailable", requestFields(r, zap.Error(err))...)
		}
	case http.StatusInternalServerError:
		a.log.Error("request failed", requestFields(r, zap.Error(err))...)
	}
	respondError(w, err, ae)
}

// respondError answers ae, the client's view of err, with the headers its status
// calls for; it logs nothing.
func respondError(w http.ResponseWriter, err error, ae *apiError) {
	switch ae.Status {
	case http.StatusUnauthorized:
		challenge := `Bearer realm="chronos"`
		if errors.Is(err, domain.ErrUnauthenticated) {
			challenge += `, error="invalid_token"` // RFC 6750: a token was sent and refused
		}
		w.Header().Set("WWW-Authenticate", challenge)
	case http.StatusTooManyRequests:
		if secs, ok := retryAfter(err); ok {
			w.Header().Set("Retry-After", secs)
		}
	case http.StatusServiceUnavailable:
		retry := unavailableRetryAfter
		if errors.Is(err, ports.ErrStorageFull) {
			retry = storageFullRetryAfter
		}
		if errors.Is(err, domain.ErrNodeBusy) {
			retry, _ = retryAfter(err)
			w.Header().Set("Retry-After", retry)
			break // no failure: a limit
		}
		w.Header().Set("Retry-After", retry)
	}
	writeJSON(w, ae.Status, struct {
		Error *apiError `json:"error"`
	}{ae})
}

// retryAfter is a refusal's Retry-After: its domain.LimitError's wait in whole
// seconds, rounded up, at least 1 (the header has no finer unit, and 0 would invite an
// immediate retry that is refused again). ok is false for a Permanent refusal: no wait
// makes it succeed, and a Retry-After would tell a client's retry loop otherwise.
func retryAfter(err error) (secs string, ok bool) {
	n := int64(1)
	var le *domain.LimitError
	if errors.As(err, &le) {
		if le.Permanent {
			return "", false
		}
		if le.RetryAfter > time.Second {
			n = int64((le.RetryAfter + time.Second - 1) / time.Second)
		}
	}
	return strconv.FormatInt(n, 10), true
}

// requestFields are the log fields that tie an entry to its request.
func requestFields(r *http.Request, more ...zap.Field) []zap.Field {
	return append([]zap.Field{
		zap.String("request_id", requestID(r.Context())),
		zap.String("method", r.Method),
		zap.String("path", r.URL.Path),
	}, more...)
}

package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
)

// Responses are built in memory and written in one go, so a failure while encoding
// still gets a clean error response instead of half a body.

// writeJSON answers v, encoded with encoding/json.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := jsonio.Append(&buf, v); err != nil {
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

// answer writes err when there is one, else 200 with {key: v}: the answer of a read or
// an action whose view is one member.
func (a *api) answer(w http.ResponseWriter, r *http.Request, err error, key string, v any) {
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{key: v})
}

// answerBody writes err when there is one, else body, a JSON document already encoded,
// with 200.
func (a *api) answerBody(w http.ResponseWriter, r *http.Request, body []byte, err error) {
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeBody(w, http.StatusOK, body)
}

// views is view of each of xs, never nil, so an empty list is [] and never null.
func views[T, V any](xs []T, view func(T) V) []V {
	vs := make([]V, len(xs))
	for i, x := range xs {
		vs[i] = view(x)
	}
	return vs
}

package httpapi

import (
	"fmt"
	"io"
	"net/http"
)

// maxIgnoredBody bounds the body of a GET, which no route reads: up to this much is read
// and dropped, so the connection serves the next request; a larger one is refused.
const maxIgnoredBody = 1 << 20

// withIgnoredBody reads away the body a GET (or HEAD) carries before its route answers.
// Left unread, net/http discards at most 256 KB of it after the answer and closes the
// connection past that, and a client still sending its body then gets a reset that can
// cut the answer short (the 148 KB OpenAPI document). A body over maxIgnoredBody is
// refused with 413 and the connection closed: what is left of it is never read.
func (a *api) withIgnoredBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		n := r.ContentLength // -1: chunked, its size unknown until read
		if n <= maxIgnoredBody {
			var err error
			if n, err = io.Copy(io.Discard, io.LimitReader(r.Body, maxIgnoredBody+1)); err != nil {
				w.Header().Set("Connection", "close")
				a.writeError(w, r, badRequest("", "the request body could not be read: "+err.Error()))
				return
			}
		}
		if n > maxIgnoredBody {
			w.Header().Set("Connection", "close")
			a.writeError(w, r, &apiError{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
				Message: fmt.Sprintf("a %s takes no body; one of up to %d bytes is ignored, this one is larger", r.Method, maxIgnoredBody)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

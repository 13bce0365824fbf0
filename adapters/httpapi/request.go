package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
)

// readBody returns the request body, refusing a declared Content-Type other than JSON
// (415) and a body over the limit (413).
func (a *api) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return a.readBodyLimit(w, r, a.maxBody)
}

// readBodyLimit is readBody with a limit of its own.
func (a *api) readBodyLimit(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if err := checkContentType(r); err != nil {
		return nil, err
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

// checkContentType refuses a declared Content-Type other than JSON (415).
func checkContentType(r *http.Request) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return &apiError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
				Message: fmt.Sprintf("Content-Type %q is not supported; send application/json", ct)}
		}
	}
	return nil
}

// decodeBody reads the request body (readBody's limits) and decodes it strictly into
// dst (jsonio.DecodeObject).
func (a *api) decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := a.readBody(w, r)
	if err != nil {
		return err
	}
	return jsonio.DecodeObject(body, dst)
}

// decodeOptionalBody is decodeBody for a body that may be left out: an empty one (or
// white space only) leaves dst as it is.
func (a *api) decodeOptionalBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := a.readBody(w, r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	return jsonio.DecodeObject(body, dst)
}

// readObject is decodeBody for a handler: on an error it answers it and returns false.
func (a *api) readObject(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := a.decodeBody(w, r, dst); err != nil {
		a.writeError(w, r, err)
		return false
	}
	return true
}

// readOptionalObject is readObject for a body that may be left out (decodeOptionalBody).
func (a *api) readOptionalObject(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := a.decodeOptionalBody(w, r, dst); err != nil {
		a.writeError(w, r, err)
		return false
	}
	return true
}

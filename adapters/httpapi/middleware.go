package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// RequestIDHeader carries the request id both ways: a caller's id is kept (so one id
// follows a request through proxies), otherwise one is generated; either is echoed.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds a caller's request id; a longer or odd one is replaced.
const maxRequestIDLen = 128

type requestIDKey struct{}

// requestID returns the id withRequestID stored in ctx, or "".
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func (a *api) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !acceptableRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// acceptableRequestID keeps ids that are safe to log and echo: visible ASCII, bounded.
func acceptableRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails on supported platforms (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// withAccessLog logs every request at debug level once it is answered.
func (a *api) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if ce := a.log.Check(zap.DebugLevel, "request"); ce != nil {
			ce.Write(requestFields(r,
				zap.Int("status", rec.statusOrOK()),
				zap.Int64("bytes", rec.bytes),
				zap.Duration("duration", time.Since(start)),
			)...)
		}
	})
}

// withRecovery turns a panic in a handler into a logged 500 in the error envelope, so
// one bad request cannot take down the connection's answer (or the process).
func (a *api) withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p) // net/http's own signal to abort the response; not a bug
			}
			a.log.Error("panic serving request", requestFields(r, zap.Any("panic", p), zap.StackSkip("stack", 1))...)
			if rec.status == 0 {
				a.writeError(w, r, &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: internalMessage})
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) statusOrOK() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

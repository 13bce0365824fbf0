package webhook

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// ErrTimeout is wrapped by the error of a delivery that outlived Options.Timeout; its
// text reads "webhook: timeout after 10s".
var ErrTimeout = errors.New("webhook: timeout")

// errTimedOut is the cause of the per-delivery context, so Wake can tell its own
// timeout from the caller's deadline.
var errTimedOut = errors.New("webhook: delivery timeout elapsed")

// maxErrorBody is how much of a refusing receiver's body is quoted in the error. The
// text becomes the alarm's last_error, so it must stay short.
const maxErrorBody = 512

// StatusError is a delivery the receiver answered with a status other than 2xx.
// Its text, e.g. "webhook: HTTP 503 Service Unavailable: <body prefix>", becomes the
// alarm's last_error.
type StatusError struct {
	Code     int    // the HTTP status code
	Status   string // the status line after the protocol, e.g. "503 Service Unavailable"
	Location string // the Location header of a 3xx answer, quoted as Body is; redirects are never followed
	// Body is up to the first 512 bytes of the response body, as printable text: valid
	// UTF-8, control characters replaced, "(binary, not quoted)" for a body with NULs.
	Body string
	// Cut says why the body stopped arriving before its end or its first 512 bytes
	// (a timeout, a reset, still dripping after maxBodyWait); "" when it did not.
	Cut string
	// Wait is the receiver's Retry-After on a 429 or 503 (seconds or an HTTP date), 0
	// when it gave none or another status.
	Wait time.Duration
}

// RetryAfter is the wait the receiver asked for (ports.ReceiverVerdict).
func (e *StatusError) RetryAfter() time.Duration { return e.Wait }

// Gone reports a 410: the receiver will never take this occurrence (ports.ReceiverVerdict).
func (e *StatusError) Gone() bool { return e.Code == http.StatusGone }

// maxRetryAfter bounds a Retry-After the waker passes on; the dispatcher caps it again
// at its backoff cap.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads Retry-After from a 429 or 503 answer: delay-seconds or an HTTP date
// (RFC 9110, 10.2.3). Anything else, or a time already past, is no wait.
func retryAfter(resp *http.Response, now time.Time) time.Duration {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return max(min(d, maxRetryAfter), 0)
}

func (e *StatusError) Error() string {
	var b strings.Builder
	b.WriteString("webhook: HTTP ")
	if e.Status != "" {
		b.WriteString(e.Status)
	} else {
		b.WriteString(strconv.Itoa(e.Code))
	}
	if e.Code >= 300 && e.Code < 400 {
		// Said outright: otherwise an operator whose URL moved to https would stare at
		// "HTTP 301" wondering why the client did not simply follow it.
		b.WriteString(" (redirects are not followed")
		if e.Location != "" {
			b.WriteString("; Location: ")
			b.WriteString(e.Location)
		}
		b.WriteString(")")
	}
	if e.Body != "" {
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	if e.Cut != "" {
		b.WriteString(" (body cut short: ")
		b.WriteString(e.Cut)
		b.WriteString(")")
	}
	return b.String()
}

// quote makes what a receiver sent fit for last_error (domain.PrintableText): valid
// UTF-8 without control characters other than newline and tab, trimmed of surrounding
// white space, at most maxErrorBody bytes, and a binary body (one with a NUL) not
// quoted at all: replaced character by character it would say nothing to a reader.
func quote(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "(binary, not quoted)"
	}
	return domain.PrintableText(strings.TrimSpace(s), maxErrorBody)
}

// plainError puts a transport error into words an owner reading last_error follows,
// with the transport's own text after them; the original error stays in the chain.
type plainError struct {
	text string
	err  error
}

func (e *plainError) Error() string { return e.text }
func (e *plainError) Unwrap() error { return e.err }

// describe says what a failed round trip or body read means for the receiver, when
// the transport's own text would leave an owner guessing ("EOF").
func describe(err error) error {
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &cert):
		// cert.Err says why: "x509: certificate signed by unknown authority", "x509:
		// certificate is valid for a.example, not b.example", "... has expired".
		return &plainError{"the receiver's TLS certificate is not trusted: " + cert.Err.Error(), err}
	case errors.Is(err, syscall.ECONNRESET):
		return &plainError{"the receiver reset the connection: " + err.Error(), err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &plainError{"the connection ended before the receiver's answer was complete (" + err.Error() + ")", err}
	}
	return err
}

// standardStatus is a status line in the standard's words, "503 Service Unavailable",
// not the receiver's own reason phrase (ReceiverErrorsStatus); the code alone when the
// standard has no text for it.
func standardStatus(code int) string {
	if text := http.StatusText(code); text != "" {
		return strconv.Itoa(code) + " " + text
	}
	return strconv.Itoa(code)
}

// generic says what a failed round trip means without the transport's text, which
// names addresses, host names and certificate names (ReceiverErrorsStatus). The
// original error stays in the chain.
func generic(err error) error {
	var (
		cert *tls.CertificateVerificationError
		dns  *net.DNSError
		text string
	)
	switch {
	case errors.As(err, &cert):
		text = "the receiver's TLS certificate is not trusted"
	case errors.As(err, &dns):
		text = "the receiver's host name did not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		text = "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		text = "the receiver reset the connection"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		text = "the receiver is unreachable"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		text = "the connection ended before the receiver's answer was complete"
	case isTimeout(err):
		text = "no connection to the receiver in time"
	default:
		text = "the request failed before the receiver answered"
	}
	return &plainError{text, err}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultMaxConns  = 32
	DefaultUserAgent = "chronos"
	// MaxSecrets bounds how many secrets sign a wake: a rotation needs two.
	MaxSecrets = 10
)

// The status line is the receiver's answer; its body is read only to quote the start of
// a refusal and to keep the connection for the next wake. Both reads are bounded, so a
// receiver that answers 50 MB, or drips its body a byte a second, costs at most
// maxDrain bytes and maxBodyWait of a delivery slot, then its connection is dropped.
const (
	// maxDrain bounds how much of a response body is read and discarded so its
	// connection can be reused. A receiver sending more costs a new connection, not memory.
	maxDrain = 64 << 10
	// maxBodyWait bounds how long the body is read after the status line arrived (the
	// delivery timeout still applies). A healthy receiver's body is there at once.
	maxBodyWait = time.Second
	// maxHeaderBytes bounds a response's headers; larger ones fail the attempt. The
	// transport's default, 10 MB per connection, would let a receiver's answer take
	// gigabytes across a node's thousand concurrent wakes. Proxies in front of
	// receivers usually refuse more than 8–16 KB anyway.
	maxHeaderBytes = 64 << 10
)

// Options configure a Waker.
type Options struct {
	// URL receives every wake: an absolute http:// or https:// URL. It is not quoted in
	// errors, since they become last_error, which owners read, and a URL may carry a
	// token.
	URL string
	// Secret keys the HMACs that sign every wake: the Chronos-Signature header, and the
	// Standard Webhooks webhook-signature (see StandardKey). Required, or Secrets,
	// unless AllowUnsigned is set.
	Secret string
	// Secrets are more secrets, after Secret: every wake is signed with each (one v1 per
	// secret in both headers), so a receiver can move to a new secret without a wake it
	// cannot verify. At most MaxSecrets in all.
	Secrets []string
	// AllowUnsigned permits an empty Secret; wakes are then sent without a
	// Chronos-Signature header. Meant for development and trusted networks only: a
	// receiver cannot tell such a wake from a forged one.
	AllowUnsigned bool
	// Timeout bounds one delivery, from dialling to reading the answer
	// (DefaultTimeout when zero). A caller's context with an earlier deadline wins.
	// The lease must exceed it.
	Timeout time.Duration
	// MaxConns is how many idle connections to the receiver are kept for reuse
	// (DefaultMaxConns when zero). Set it to the dispatcher's concurrency so that
	// steady load never opens new connections.
	MaxConns int
	// UserAgent is the whole User-Agent header value, "chronos/<version>"
	// (DefaultUserAgent when empty).
	UserAgent string
	// ReceiverErrors is how much of a failed delivery its error, which becomes the
	// alarm's last_error, quotes: ReceiverErrorsStatus (when empty) or
	// ReceiverErrorsFull.
	ReceiverErrors ReceiverErrors
	// AttemptBodyBytes is how much of every answer's body WakeResponse reads for the
	// attempt log (0: none; at most domain.MaxReceiptBody). An answer without a body
	// (a 204, Content-Length: 0) reads nothing.
	AttemptBodyBytes int
	// Egress, when set, is checked on every address the waker connects to, after DNS
	// (a net.Dialer Control): a refused one is not connected to, and the delivery's
	// error is the policy's *domain.EgressError. Such a waker ignores HTTP_PROXY and
	// HTTPS_PROXY: through a proxy the address it connects to is the proxy's, and the
	// receiver's would go unchecked. nil: no check (the operator's own --wake-url).
	Egress *domain.EgressPolicy
}

// ReceiverErrors says how much of what went wrong at the receiver a delivery's error
// quotes. That error becomes last_error, which the alarm's owner reads, while the
// receiver may be the operator's (one --wake-url for every owner): its answers and the
// addresses it resolves to are then none of the owners' business.
type ReceiverErrors string

const (
	// ReceiverErrorsStatus quotes the status code and its standard text ("HTTP 503
	// Service Unavailable"), and a failure before any answer in generic words
	// ("connection refused", "the receiver's TLS certificate is not trusted"): no body,
	// no Location, no reason phrase of the receiver's own, no address.
	ReceiverErrorsStatus ReceiverErrors = "status"
	// ReceiverErrorsFull adds the receiver's own words: its status line, the first 512
	// bytes of its body, a redirect's Location, why the body was cut short, and the
	// transport's text ("dial tcp 10.0.0.7:443: connect: connection refused").
	ReceiverErrorsFull ReceiverErrors = "full"
)

// Waker POSTs wakes to one URL. It is safe for concurrent use and shares one pool of
// keep-alive connections between all deliveries.
type Waker struct {
	url       string
	secrets   [][]byte // the Chronos-Signature keys; none: unsigned
	standard  [][]byte // the webhook-signature keys, one per secret
	timeout   time.Duration
	userAgent string
	full      bool // Options.ReceiverErrors is ReceiverErrorsFull
	bodyBytes int  // Options.AttemptBodyBytes
	client    *http.Client
}

var _ ports.ResponseWaker = (*Waker)(nil)

// New validates o and returns a Waker. Call Close when done with it.
func New(o Options) (*Waker, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webhook: wake URL %q must be an absolute http:// or https:// URL", o.URL)
	}
	secrets := append([]string{o.Secret}, o.Secrets...)
	if o.Secret == "" {
		secrets = o.Secrets
	}
	if len(secrets) == 0 && !o.AllowUnsigned {
		return nil, errors.New("webhook: a wake secret is required to sign wakes (allow unsigned wakes explicitly to send them without one)")
	}
	if len(secrets) > MaxSecrets {
		return nil, fmt.Errorf("webhook: at most %d wake secrets, got %d", MaxSecrets, len(secrets))
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("webhook: delivery timeout must not be negative, got %s", o.Timeout)
	}
	if o.AttemptBodyBytes < 0 || o.AttemptBodyBytes > domain.MaxReceiptBody {
		return nil, fmt.Errorf("webhook: attempt body bytes must be between 0 and %d, got %d", domain.MaxReceiptBody, o.AttemptBodyBytes)
	}
	if o.MaxConns < 0 {
		return nil, fmt.Errorf("webhook: max connections must not be negative, got %d", o.MaxConns)
	}
	switch o.ReceiverErrors {
	case "", ReceiverErrorsStatus, ReceiverErrorsFull:
	default:
		return nil, fmt.Errorf("webhook: receiver errors must be %q or %q, got %q", ReceiverErrorsStatus, ReceiverErrorsFull, o.ReceiverErrors)
	}
	w := &Waker{
		url:       u.String(),
		timeout:   o.Timeout,
		userAgent: o.UserAgent,
		full:      o.ReceiverErrors == ReceiverErrorsFull,
		bodyBytes: o.AttemptBodyBytes,
	}
	for i, secret := range secrets {
		if secret == "" {
			return nil, fmt.Errorf("webhook: wake secret %d is empty", i+1)
		}
		key, err := StandardKey(secret)
		if err != nil {
			return nil, fmt.Errorf("webhook: wake secret %d: %w", i+1, err)
		}
		w.secrets, w.standard = append(w.secrets, []byte(secret)), append(w.standard, key)
	}
	if w.timeout == 0 {
		w.timeout = DefaultTimeout
	}
	if w.userAgent == "" {
		w.userAgent = DefaultUserAgent
	}
	maxConns := o.MaxConns
	if maxConns == 0 {
		maxConns = DefaultMaxConns
	}

	// Cloned from the default transport to keep its dial and TLS timeouts, proxy from
	// the environment and HTTP/2. The default keeps only 2 idle connections per host,
	// which under concurrent wakes to a single receiver means constant reconnecting.
	t := http.DefaultTransport.(*http.Transport).Clone()
	if o.Egress != nil {
		t.Proxy = nil
		t.DialContext = egressDialer(*o.Egress).DialContext
	}
	t.MaxIdleConns = maxConns
	t.MaxIdleConnsPerHost = maxConns
	t.MaxResponseHeaderBytes = maxHeaderBytes
	w.client = &http.Client{
		Transport: t,
		// A redirect is a failure: following it would POST the wake, secret-signed, to
		// wherever the receiver points, and turns a misconfigured URL into silent
		// extra hops. ErrUseLastResponse hands the 3xx back to Wake to report.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return w, nil
}

// RedeliveryHeader marks a wake the owner asked to be sent again (POST
// /v1/alarms/{id}/redeliver): "1". It carries its occurrence's own key, so a receiver
// that dedupes by webhook-id sees it as the occurrence it already had; one that wants
// it handled again looks at this header.
const RedeliveryHeader = "Chronos-Redelivery"

// Wake POSTs w and returns nil when the receiver answered 2xx within the timeout.
// When ctx is done first, ctx's error is returned as is.
func (wk *Waker) Wake(ctx context.Context, w domain.Wake) error {
	_, err := wk.WakeResponse(ctx, w)
	return err
}

// WakeResponse is Wake with the receiver's answer: its status, Content-Type and the
// first Options.AttemptBodyBytes of its body (ports.ResponseWaker).
func (wk *Waker) WakeResponse(ctx context.Context, w domain.Wake) (ports.Response, error) {
	if err := ctx.Err(); err != nil {
		return ports.Response{}, err
	}
	body := Body(w)
	if w.Notice != "" {
		body = w.Payload // a failure notice delivers its body as it is (domain/notice.go)
	}
	// reqCtx ends at the delivery timeout (cause errTimedOut) or, when a body follows
	// the status line, maxBodyWait after it (cancel: cause context.Canceled); either
	// drops the connection.
	reqCtx, cancel := context.WithTimeoutCause(ctx, wk.timeout, errTimedOut)
	defer cancel()

	// A bytes.Reader body lets net/http set Content-Length and GetBody; with the
	// Idempotency-Key header the transport may then resend the request when a reused
	// keep-alive connection turns out to have been closed by the receiver.
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, wk.url, bytes.NewReader(body))
	if err != nil {
		return ports.Response{}, fmt.Errorf("webhook: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", wk.userAgent)
	req.Header.Set("Idempotency-Key", w.OccurrenceKey)
	if w.Redelivery {
		req.Header.Set(RedeliveryHeader, "1")
	}
	setTraceHeaders(req.Header, w)
	if len(wk.secrets) > 0 {
		now := time.Now()
		req.Header.Set(SignatureHeader, SignAll(wk.secrets, now, body))
		req.Header.Set(StandardIDHeader, w.OccurrenceKey)
		req.Header.Set(StandardTimestampHeader, strconv.FormatInt(now.Unix(), 10))
		req.Header.Set(StandardSignatureHeader, SignStandard(wk.standard, w.OccurrenceKey, now, body))
	}

	httpResp, err := wk.client.Do(req)
	if err != nil {
		return ports.Response{}, wk.deliveryError(ctx, reqCtx, err)
	}
	recordStatus(ctx, httpResp.StatusCode)
	// The status is the answer: a 2xx acknowledges the wake whatever its body does next
	// (drips, never ends, is cut by a reset), since the receiver has said it took it.
	// The body gets maxBodyWait; no timer when there is none (the common empty 2xx).
	hasBody := httpResp.Body != http.NoBody && httpResp.ContentLength != 0
	if hasBody {
		stop := time.AfterFunc(maxBodyWait, cancel)
		defer stop.Stop()
	}
	defer drainAndClose(httpResp.Body)
	resp := ports.Response{Status: httpResp.StatusCode, ContentType: httpResp.Header.Get("Content-Type")}
	ok := httpResp.StatusCode >= 200 && httpResp.StatusCode < 300
	// One read serves the attempt log and a full error's quote. Best effort: if the body
	// cannot be read in time, what came is kept, and a full error says why the rest did not.
	want := wk.bodyBytes
	if !ok && wk.full {
		want = max(want, maxErrorBody)
	}
	var prefix []byte
	var readErr error
	if hasBody && want > 0 {
		prefix, readErr = io.ReadAll(io.LimitReader(httpResp.Body, int64(want)+1))
		if n := min(len(prefix), wk.bodyBytes); n > 0 {
			resp.Body, resp.Truncated = prefix[:n:n], len(prefix) > n || readErr != nil
		}
	}
	if ok {
		return resp, nil
	}
	if !wk.full {
		return resp, &StatusError{Code: httpResp.StatusCode, Status: standardStatus(httpResp.StatusCode), Wait: retryAfter(httpResp, time.Now())}
	}
	se := &StatusError{
		Code:     httpResp.StatusCode,
		Status:   httpResp.Status,
		Location: quote(httpResp.Header.Get("Location")),
		Body:     quote(string(prefix[:min(len(prefix), maxErrorBody)])),
		Wait:     retryAfter(httpResp, time.Now()),
	}
	if readErr != nil {
		se.Cut = wk.cutReason(ctx, reqCtx, readErr)
	}
	return resp, se
}

// cutReason says why a body stopped arriving before its end.
func (wk *Waker) cutReason(ctx, reqCtx context.Context, err error) string {
	switch cause := context.Cause(reqCtx); {
	case ctx.Err() != nil:
		return context.Cause(ctx).Error() // the caller's reason: its deadline, a shutdown
	case errors.Is(cause, errTimedOut):
		return fmt.Sprintf("timeout after %s", wk.timeout)
	case errors.Is(cause, context.Canceled):
		// Neither the caller nor the timeout: before Wake returns, only the body's
		// timer cancels reqCtx.
		return fmt.Sprintf("still arriving %s after the status", maxBodyWait)
	}
	return describe(err).Error()
}

// deliveryError turns a failed round trip into the error Wake returns.
func (wk *Waker) deliveryError(ctx, reqCtx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr // the caller gave up (shutdown, its own deadline): not the receiver's fault
	}
	var refused *domain.EgressError
	if errors.As(err, &refused) {
		return refused // said in the policy's words, whatever ReceiverErrors: nothing was sent
	}
	if errors.Is(context.Cause(reqCtx), errTimedOut) {
		return fmt.Errorf("%w after %s", ErrTimeout, wk.timeout)
	}
	// url.Error would repeat the method and the URL; the URL is kept out of last_error
	// (see Options.URL), and what remains says what happened, e.g.
	// "dial tcp 10.0.0.7:443: connect: connection refused".
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if !wk.full {
		return fmt.Errorf("webhook: %w", generic(err))
	}
	return fmt.Errorf("webhook: %w", describe(err))
}

// drainAndClose reads what is left of a response body, up to maxDrain, before closing
// it: net/http returns a connection to the idle pool only once its body was read to EOF.
func drainAndClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	_ = body.Close()
}

// Close releases the idle connections. Wakes still in flight finish normally.
func (wk *Waker) Close() {
	wk.client.CloseIdleConnections()
}

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultUserAgent is sent unless WithUserAgent says otherwise.
const DefaultUserAgent = "chronos-go-client"

// maxResponseBytes bounds what the client reads of one answer. The largest legitimate
// answer is a batch of 1000 alarms with 64 KiB payloads each; an answer beyond this is
// a misconfigured proxy, not chronos.
const maxResponseBytes = 256 << 20

// Client calls one chronos server as the owner (or administrator) of one token. It is
// safe for concurrent use.
type Client struct {
	base      *url.URL // scheme, host and any path prefix; no trailing slash
	token     string
	http      *http.Client
	userAgent string
	retry     retryPolicy // zero: no retries
}

// Option configures New.
type Option func(*Client)

// WithHTTPClient sends requests through hc instead of http.DefaultClient: for timeouts,
// proxies, TLS settings or a test transport.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent header, so that the server's access log tells
// callers apart.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// New returns a client for the server at baseURL ("https://chronos.example.com", or
// with a path prefix when a proxy mounts chronos below one) that authenticates with
// token. It makes no request.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q must be http:// or https:// with a host", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q must not carry a query or a fragment", baseURL)
	}
	if token == "" {
		return nil, errors.New("client: a token is required (chronos token create --owner NAME makes one)")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	c := &Client{base: u, token: token, http: http.DefaultClient, userAgent: DefaultUserAgent}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// call is one request: path is below the base URL with its segments already escaped.
type call struct {
	method string
	path   string
	query  url.Values
	body   []byte // nil: no body
	// repeatable marks a POST the server answers the same way when it comes twice (a
	// create with an idempotency key, a backfill, a bulk call from a cursor), so a 503
	// may be retried.
	repeatable bool
}

// do sends c and decodes a 2xx answer into out (nil: the body is drained and dropped).
// Any other status is an *Error. Transport and context errors come back wrapped, so
// errors.Is(err, context.Canceled) and the like still hold. With WithRetry, a 429 or
// 503 the policy allows is sent again after the wait the server asked for.
func (c *Client) do(ctx context.Context, cl call, out any) error {
	for attempt := 1; ; attempt++ {
		status, header, data, err := c.send(ctx, cl)
		if err != nil {
			return err
		}
		if status >= 200 && status <= 299 {
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("client: %s %s: decoding the %d answer: %w", cl.method, cl.path, status, err)
			}
			return nil
		}
		apiErr := parseError(status, data)
		wait, ok := c.retry.wait(attempt, status, header, cl)
		if !ok {
			return apiErr
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("client: %s %s: waiting %s to retry: %w (last answer: %w)", cl.method, cl.path, wait, err, apiErr)
		}
	}
}

// send makes one attempt of cl and reads its answer.
func (c *Client) send(ctx context.Context, cl call) (int, http.Header, []byte, error) {
	// The path is appended as text: its segments are escaped already, and url.URL would
	// escape an id's %2F a second time.
	target := c.base.String() + cl.path
	if q := cl.query.Encode(); q != "" {
		target += "?" + q
	}
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("client: %s %s: %w", cl.method, cl.path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("client: %s %s: %w", cl.method, cl.path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("client: %s %s: reading the answer: %w", cl.method, cl.path, err)
	}
	return res.StatusCode, res.Header, data, nil
}

// marshal encodes a request body. Request types are plain structs that always encode;
// an error here is a bug, reported rather than sent.
func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: encoding %T: %w", v, err)
	}
	return b, nil
}

// alarmPath is /v1/alarms/{id} plus more path segments, each escaped. An empty id is
// refused here: it would address the collection, not an alarm.
func alarmPath(prefix, id string, more ...string) (string, error) {
	if id == "" {
		return "", errNoID
	}
	p := prefix + "/" + url.PathEscape(id)
	for _, m := range more {
		p += "/" + m
	}
	return p, nil
}

var errNoID = errors.New("client: an alarm id is required")

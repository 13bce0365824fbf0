package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// answer is a response read in full.
type answer struct {
	status   int
	location string
	header   http.Header
	body     string
}

func (e *env) do(c *http.Client, req *http.Request) answer {
	e.t.Helper()
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, location: res.Header.Get("Location"), header: res.Header, body: string(b)}
}

func (e *env) get(c *http.Client, path string) answer {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, "GET", e.srv.URL+path, nil)
	return e.do(c, req)
}

// post submits a form as a browser of this site would (with its Origin).
func (e *env) post(c *http.Client, path string, form url.Values) answer {
	e.t.Helper()
	return e.postFrom(c, e.srv.URL, path, form)
}

func (e *env) postFrom(c *http.Client, origin, path string, form url.Values) answer {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, "POST", e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return e.do(c, req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token from a page the browser has open.
func (e *env) csrf(c *http.Client, path string) string {
	e.t.Helper()
	p := e.get(c, path)
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		e.t.Fatalf("no CSRF field on %s (%d)", path, p.status)
	}
	return m[1]
}

func decodeJSON(res *http.Response, v any) error { return json.NewDecoder(res.Body).Decode(v) }

package domain

import (
	"encoding/base64"
	"strings"
	"testing"
)

// A secret given now has at least 24 bytes of key and a URL given now no credentials;
// what an endpoint kept from before passes, so an old endpoint keeps working and can
// still be changed.
func TestValidateEndpointWrite(t *testing.T) {
	strong := strings.Repeat("k", MinEndpointSecretLen)
	whsec := func(n int) string {
		return "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", n)))
	}
	ep := func(mutate func(*Endpoint)) Endpoint {
		e := Endpoint{Owner: "o", Name: "billing", URL: "https://h.example.com/w", Secrets: []string{strong}}
		if mutate != nil {
			mutate(&e)
		}
		return e
	}
	old := ep(func(e *Endpoint) {
		e.URL, e.FailureURL, e.Secrets = "https://u:p@h.example.com/w", "https://t@h.example.com/f", []string{"short"}
	})
	for _, c := range []struct {
		name   string
		e      Endpoint
		before *Endpoint
		field  string // "" for none
	}{
		{"a strong secret", ep(nil), nil, ""},
		{"a whsec_ secret of 24 bytes", ep(func(e *Endpoint) { e.Secrets = []string{whsec(24)} }), nil, ""},
		{"a short secret", ep(func(e *Endpoint) { e.Secrets = []string{strings.Repeat("k", MinEndpointSecretLen-1)} }), nil, "secrets"},
		{"a whsec_ secret of 23 bytes", ep(func(e *Endpoint) { e.Secrets = []string{whsec(23)} }), nil, "secrets"},
		{"credentials in url", ep(func(e *Endpoint) { e.URL = "https://user:pw@h.example.com/w" }), nil, "url"},
		{"a user in url", ep(func(e *Endpoint) { e.URL = "https://token@h.example.com/w" }), nil, "url"},
		{"credentials in failure_url", ep(func(e *Endpoint) { e.FailureURL = "https://user:pw@h.example.com/f" }), nil, "failure_url"},
		{"an old endpoint patched elsewhere", func() Endpoint { e := old; e.MaxInFlight = 3; return e }(), &old, ""},
		{"an old short secret kept beside a new one", func() Endpoint { e := old; e.Secrets = []string{strong, "short"}; return e }(), &old, ""},
		{"a new short secret beside an old one", func() Endpoint { e := old; e.Secrets = []string{"short", "tiny"}; return e }(), &old, "secrets"},
		{"a new url with credentials", func() Endpoint { e := old; e.URL = "https://x:y@h.example.com/v2"; return e }(), &old, "url"},
	} {
		err := ValidateEndpointWrite(c.e, c.before)
		if c.field == "" && err != nil || c.field != "" && !isField(err, c.field) {
			t.Errorf("%s: %v, want a refusal naming %q", c.name, err, c.field)
		}
	}
	if !WeakSecret("short") || WeakSecret(strong) || !WeakSecret(whsec(16)) || WeakSecret(whsec(32)) {
		t.Error("WeakSecret does not go by the key's bytes")
	}
}

// Every view shows a stored URL's credentials as xxxxx, and any other URL as it is.
func TestRedactedURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://user:pass@h.example.com/p?q=1": "https://xxxxx@h.example.com/p?q=1",
		"https://token@h.example.com/p":         "https://xxxxx@h.example.com/p",
		"https://h.example.com/p":               "https://h.example.com/p",
		"":                                      "",
	} {
		if got := RedactedURL(raw); got != want {
			t.Errorf("RedactedURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// Package storeurl hides the secrets a store URL carries (the password of
// user:password@ and query parameters such as ?password= or ?sslpassword=) wherever a
// URL, or an error that may quote one, is printed or logged. Every command that names
// a store URL goes through it.
package storeurl

import (
	"net/url"
	"strings"
)

// Mask replaces each secret in what Redact and RedactError return.
const Mask = "xxxxx"

// minSecretLen is the shortest secret RedactError looks for in an error's text on its
// own (the URL itself is always replaced whole): a shorter string would match
// everywhere and mangle the message.
const minSecretLen = 4

// Redact is raw with its secrets masked: the password of its user:password@ and the
// value of every query parameter whose name says it holds one (secretParam). Nothing
// else changes, so the URL still says which server and database it names. A string
// that is not a URL at all is returned with what looks like those parts masked.
func Redact(raw string) string {
	out, _ := redact(raw)
	return out
}

// RedactError is err with every secret of urls masked in its text, wherever the
// message quotes them (a driver may quote a whole URL, or a parameter of it). Its
// Unwrap is err, so errors.Is and errors.As still see the cause. nil stays nil.
func RedactError(err error, urls ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	for _, u := range urls {
		if u == "" {
			continue
		}
		masked, secrets := redact(u)
		text = strings.ReplaceAll(text, u, masked)
		for _, s := range secrets {
			if len(s) >= minSecretLen {
				text = strings.ReplaceAll(text, s, Mask)
			}
		}
	}
	if text == err.Error() {
		return err
	}
	return &redactedError{text: text, err: err}
}

type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// redact masks raw's secrets and returns them too, as written and percent-decoded.
func redact(raw string) (string, []string) {
	var secrets []string
	keep := func(s string) {
		secrets = append(secrets, s)
		if d, err := url.PathUnescape(s); err == nil && d != s {
			secrets = append(secrets, d)
		}
	}
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	base, query, hasQuery := strings.Cut(rest, "?")
	// The userinfo ends at the last '@' before the query. An '@' only after a '?' that
	// comes before any '/' means the password itself holds an unescaped '?': everything
	// up to that '@' is hidden.
	if at := strings.LastIndex(base, "@"); at >= 0 {
		base = maskUserinfo(base[:at], keep) + base[at:]
	} else if at := strings.LastIndex(rest, "@"); at >= 0 && prefix != "" && hasQuery && !strings.Contains(base, "/") {
		keep(rest[:at])
		return prefix + Mask + rest[at:], secrets
	}
	if !hasQuery {
		return prefix + base, secrets
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	params := strings.Split(query, "&")
	for i, p := range params {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil && secretParam(n) {
			keep(value)
			if d, err := url.QueryUnescape(value); err == nil && d != value {
				secrets = append(secrets, d)
			}
			params[i] = name + "=" + Mask
		}
	}
	out := prefix + base + "?" + strings.Join(params, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out, secrets
}

// maskUserinfo masks the password of user:password.
func maskUserinfo(userinfo string, keep func(string)) string {
	user, pass, ok := strings.Cut(userinfo, ":")
	if !ok {
		return userinfo
	}
	if pass != "" {
		keep(pass)
	}
	return user + ":" + Mask
}

// secretParam reports a query parameter whose value is a secret: a password
// (password, sslpassword, passwd, pwd), a passphrase, a secret or a token of any name.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, word := range []string{"password", "passwd", "passphrase", "secret", "token", "credential"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return n == "pwd" || n == "pass"
}

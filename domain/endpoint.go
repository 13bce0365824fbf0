package domain

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Endpoint is a named delivery target of one owner: where its alarms that name it are
// woken, signed with which secrets, and how much of a node's delivery it may hold.
// Only an admin registers one, so an owner cannot point wakes at an arbitrary URL.
type Endpoint struct {
	Owner string
	Name  string
	URL   string
	// Secrets sign every wake to this endpoint, each (rotation); at least one.
	Secrets []string
	// Timeout bounds one delivery; 0: the node's --delivery-timeout.
	Timeout time.Duration
	// MaxInFlight caps this endpoint's wakes in flight on one node; 0: no cap of its own.
	MaxInFlight int
	// RatePerSecond paces this endpoint's wakes on one node; 0: unpaced.
	RatePerSecond float64
	// FailureURL receives a signed notification when one of its once alarms fails or one
	// of its series pauses itself; "" for none.
	FailureURL string

	CreatedAt time.Time
	UpdatedAt time.Time
}

// Limits of an endpoint's fields (the API's contract; README lists them).
const (
	MaxEndpointSecrets     = 10
	MaxEndpointSecretLen   = 256
	MaxEndpointURLLen      = 2048
	MaxEndpointTimeout     = 5 * time.Minute
	MaxEndpointInFlight    = 100_000
	MaxEndpointRatePerSec  = 1_000_000
	MinEndpointTimeout     = 100 * time.Millisecond
	endpointSecretPrefixWS = "whsec_"
	// MinEndpointSecretLen is the fewest bytes of key a secret given now may have (a
	// "whsec_" secret's key is its decoded base64): a shorter one is found by trying
	// keys against one signed wake. Secrets stored before the rule keep working.
	MinEndpointSecretLen = 24
)

var endpointName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ValidateEndpoint checks an endpoint as it may be stored, one registered before the
// rules of ValidateEndpointWrite included; every refusal is a *ValidationError naming
// the field.
func ValidateEndpoint(e Endpoint) error {
	if e.Owner == "" {
		return invalid("owner", "is required")
	}
	if !endpointName.MatchString(e.Name) {
		return invalid("name", "must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit, got %q", e.Name)
	}
	if err := checkURL("url", e.URL, true); err != nil {
		return err
	}
	if err := checkURL("failure_url", e.FailureURL, false); err != nil {
		return err
	}
	if len(e.Secrets) == 0 {
		return invalid("secrets", "needs at least one secret: every wake is signed")
	}
	if len(e.Secrets) > MaxEndpointSecrets {
		return invalid("secrets", "at most %d secrets, got %d", MaxEndpointSecrets, len(e.Secrets))
	}
	for _, s := range e.Secrets {
		if s == "" || len(s) > MaxEndpointSecretLen {
			return invalid("secrets", "each secret must be 1 to %d bytes", MaxEndpointSecretLen)
		}
		if err := checkText("secrets", s, MaxEndpointSecretLen); err != nil {
			return err
		}
		if rest, ok := strings.CutPrefix(s, endpointSecretPrefixWS); ok {
			if k, err := base64.StdEncoding.DecodeString(rest); err != nil || len(k) == 0 {
				return invalid("secrets", `a secret starting "whsec_" must continue in base64`)
			}
		}
	}
	if e.Timeout != 0 && (e.Timeout < MinEndpointTimeout || e.Timeout > MaxEndpointTimeout) {
		return invalid("timeout_seconds", "must be between %s and %s, got %s", MinEndpointTimeout, MaxEndpointTimeout, e.Timeout)
	}
	if e.MaxInFlight < 0 || e.MaxInFlight > MaxEndpointInFlight {
		return invalid("max_in_flight", "must be between 0 (no cap) and %d, got %d", MaxEndpointInFlight, e.MaxInFlight)
	}
	if e.RatePerSecond < 0 || e.RatePerSecond > MaxEndpointRatePerSec {
		return invalid("rate_per_second", "must be between 0 (unpaced) and %d, got %g", MaxEndpointRatePerSec, e.RatePerSecond)
	}
	return nil
}

func checkURL(field, raw string, required bool) error {
	if raw == "" {
		if required {
			return invalid(field, "is required")
		}
		return nil
	}
	if len(raw) > MaxEndpointURLLen {
		return invalid(field, "is longer than %d bytes", MaxEndpointURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid(field, "must be an absolute http:// or https:// URL")
	}
	return nil
}

// ValidateEndpointWrite checks an endpoint an admin registers (before nil) or changes
// (before: as stored): ValidateEndpoint, and the rules for values given now. A new
// secret has at least MinEndpointSecretLen bytes of key; a URL given now carries no
// credentials (user:password@), which every view of it would show and which belong in
// the receiver's check of the signature instead. A secret or URL kept from before
// passes as it is, so an endpoint stored before these rules keeps working and can
// still be changed; views flag such secrets (WeakSecret) and redact such URLs.
func ValidateEndpointWrite(e Endpoint, before *Endpoint) error {
	if err := ValidateEndpoint(e); err != nil {
		return err
	}
	var was Endpoint
	if before != nil {
		was = *before
	}
	for _, f := range []struct{ field, now, was string }{{"url", e.URL, was.URL}, {"failure_url", e.FailureURL, was.FailureURL}} {
		if f.now != f.was && HasUserinfo(f.now) {
			return invalid(f.field, "must not carry credentials (user:password@): every wake is signed, and views would show them")
		}
	}
	for _, s := range e.Secrets {
		if slices.Contains(was.Secrets, s) {
			continue
		}
		if WeakSecret(s) {
			return invalid("secrets", "each new secret must have at least %d bytes of key (a whsec_ secret, %d once decoded); leave secrets out and the server makes one", MinEndpointSecretLen, MinEndpointSecretLen)
		}
	}
	return nil
}

// WeakSecret reports a secret with fewer than MinEndpointSecretLen bytes of key: one
// the rule refuses now, stored before it.
func WeakSecret(s string) bool {
	if rest, ok := strings.CutPrefix(s, endpointSecretPrefixWS); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return len(k) < MinEndpointSecretLen
		}
	}
	return len(s) < MinEndpointSecretLen
}

// RedactedURL is raw as every view shows it: the credentials of a URL stored before
// they were refused (ValidateEndpointWrite) as xxxxx, "https://user:pass@host/p" as
// "https://xxxxx@host/p". The node still sends them; no view shows them.
func RedactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// HasUserinfo reports a URL that carries credentials (user or user:password before
// the host).
func HasUserinfo(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.User != nil
}

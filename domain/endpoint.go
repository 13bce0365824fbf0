package domain

import (
	"encoding/base64"
	"net/url"
	"regexp"
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
)

var endpointName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ValidateEndpoint checks an endpoint an admin registers or changes; every refusal is
// a *ValidationError naming the field.
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

package domain

import (
	"slices"
	"time"
)

// EndpointPatch changes an endpoint in place: nil fields are left as they are. Secrets,
// when given, replace the whole list (add the new secret first and drop the old one
// later to rotate without a gap).
type EndpointPatch struct {
	URL           *string
	Secrets       []string // nil: leave them; given, even empty, they replace the list
	Timeout       *time.Duration
	MaxInFlight   *int
	RatePerSecond *float64
	FailureURL    *string // "" for none
}

// IsZero reports a patch that gives no field.
func (p EndpointPatch) IsZero() bool {
	return p.URL == nil && p.Secrets == nil && p.Timeout == nil && p.MaxInFlight == nil && p.RatePerSecond == nil &&
		p.FailureURL == nil
}

// ApplyTo returns e with the patch's fields; it checks nothing (ValidateEndpoint does).
func (p EndpointPatch) ApplyTo(e Endpoint) Endpoint {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&e.URL, p.URL)
	set(&e.FailureURL, p.FailureURL)
	if p.Secrets != nil {
		e.Secrets = slices.Clone(p.Secrets)
	}
	if p.Timeout != nil {
		e.Timeout = *p.Timeout
	}
	if p.MaxInFlight != nil {
		e.MaxInFlight = *p.MaxInFlight
	}
	if p.RatePerSecond != nil {
		e.RatePerSecond = *p.RatePerSecond
	}
	return e
}

package app

import "time"

// EndpointsStateName is the ports.StateStore name every change to an endpoint (create,
// update, delete, any owner's) writes a new value under. A dispatcher caches the
// endpoints and reads them again when the value differs from the one it last saw; the
// value is opaque to it (EndpointsChange, but only "it changed" matters).
const EndpointsStateName = "endpoints"

// EndpointsChange is the value stored under EndpointsStateName: the last change, for
// people and logs. Version is new at every change, so two changes never leave the same
// value, even at the same instant.
type EndpointsChange struct {
	Version string    `json:"version"`
	At      time.Time `json:"at"`
	Owner   string    `json:"owner"`
	Name    string    `json:"name"`
	Action  string    `json:"action"` // "created", "updated" or "deleted"
	By      string    `json:"by"`     // the admin token's id
}

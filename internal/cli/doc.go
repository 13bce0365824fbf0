// Package cli is the chronos commands that are no part of the server: `chronos alarm`
// and `chronos admin`, which call a running server through package client, and
// `chronos token`, which makes, lists and revokes API tokens on the store itself.
// cmd/chronos dispatches to Alarm, Admin and Token in one line each; what a command
// must not choose itself (the version it reports, how a store URL is opened, --store's
// default) comes in a Wiring.
//
// It is internal to the module: the command line is no part of chronos as a library.
// Flags are parsed as every chronos command parses them (package flagenv); alarm and
// admin read only CHRONOS_SERVER and CHRONOS_TOKEN from the environment (conn.go says
// why).
package cli

import (
	"context"

	"github.com/chronoshq/chronos/ports"
)

// Wiring is what the commands take from the binary.
type Wiring struct {
	// Version goes into the User-Agent of alarm and admin requests: chronos-cli/Version.
	Version string
	// Open opens a store URL (sqlite://, postgres://, mysql://) as `chronos serve`
	// does, migrating its schema when asked: the binary's own, so token names no
	// adapter. Token's only.
	Open func(ctx context.Context, url string, migrate bool) (ports.Store, error)
	// DefaultStore is token's --store default: serve's, so both find the same store.
	DefaultStore string
}

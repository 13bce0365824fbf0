// Package cli is the chronos commands that are no part of the server: `chronos alarm`
// and `chronos admin`, which call a running server through package client.
// cmd/chronos dispatches to Alarm and Admin in one line each; what a command must not
// choose itself (the version it reports) comes in a Wiring.
//
// It is internal to the module: the command line is no part of chronos as a library.
// Flags are parsed as every chronos command parses them (package flagenv); alarm and
// admin read only CHRONOS_SERVER and CHRONOS_TOKEN from the environment (conn.go says
// why).
package cli

// Wiring is what the commands take from the binary.
type Wiring struct {
	// Version goes into the User-Agent of alarm and admin requests: chronos-cli/Version.
	Version string
}

// Package app holds chronos's use cases: the owner-facing operations on alarms and
// tokens, and the Dispatcher that claims due alarms, delivers their wakes and applies the
// outcomes. It depends on domain and ports only; adapters are chosen and wired in cmd.
//
// Every component has a plain constructor (NewAlarms, NewDispatcher, ...), so a Go
// program can embed chronos without fx.
package app

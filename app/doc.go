// Package app is chronos's use cases, in rooms: dispatch (the dispatcher and its
// endpoint router), chores (the background work), owners (the owner-facing use cases)
// and admin (the operator's). This package is the small kernel they share: the
// store-synced clock, the in-process hints, alarm ids, the bound on the loops' store
// calls and the endpoints' change value; app/internal holds what the rooms share and
// an embedder has no use for. docs/architecture.md draws the arrows; .ci/check-layers
// enforces them.
//
// Every component has a plain constructor (owners.NewAlarms, dispatch.New, ...), so a
// Go program can embed chronos without fx; the root package chronos wires one node.
package app

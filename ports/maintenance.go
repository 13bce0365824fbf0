package ports

import (
	"context"
	"time"
)

// Maintainer is optional: a store implements it when its database needs upkeep of
// chronos's tables that the database may not be doing by itself. A PostgreSQL server
// with autovacuum off never removes the dead row versions that every fire leaves
// behind, and the claim walks their index entries until something does. Callers check
// for it with a type assertion; a store without it needs nothing (InnoDB purges by
// itself, SQLite frees deleted rows in place).
//
// chores.Maintenance calls Maintain on every node every few seconds, so:
//   - Maintain must be safe to call from many processes at once, and must do the work on
//     at most one of them at a time (a lock in the database, never in one node's memory).
//   - It decides itself whether anything is needed (cheaply: reading counters, not
//     tables) and returns without doing anything otherwise.
//   - It must not block dispatching: no statement that locks out claims or Apply
//     (PostgreSQL's plain VACUUM takes no lock that they conflict with; VACUUM FULL would).
type Maintainer interface {
	// MaintenanceNotice says once, at start-up, what an operator should know about the
	// database's own upkeep and what Maintain will therefore do, for example that
	// autovacuum is off. "" when there is nothing to say.
	MaintenanceNotice(ctx context.Context) (string, error)

	// Maintain does the upkeep that is due now and reports each action. It returns no
	// actions when none was due or another process holds the maintenance lock.
	Maintain(ctx context.Context) ([]MaintenanceAction, error)
}

// MaintenanceAction is one piece of upkeep Maintain did.
type MaintenanceAction struct {
	Table    string        // the table it was done to
	What     string        // "vacuum", "vacuum analyze", ...
	Why      string        // what made it due, for the log: "41,000 dead rows of 1,200,000"
	Duration time.Duration // how long it took
}

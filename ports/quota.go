package ports

import "context"

// QuotaStore counts what an owner's quota of active alarms is checked against
// (--max-active-alarms-per-owner). owners.Quota keeps each owner's count in memory and
// calls CountActive about once per refresh interval for each owner that creates on the
// node, not once per create: the create path is the API's hottest. Most counts run in
// the background; a create waits for one only when the node has no count of its owner
// (its first create there, or its first after a minute idle) or would be refused on a
// count past its age limit. So a count must stay cheap: see the bound below.
type QuotaStore interface {
	// CountActive returns how many of the owner's alarms have a status of
	// domain.QuotaStatuses (active or paused), counting at most atMost of them:
	// min(count, atMost). atMost is at least 1. A read: it takes no lock a create or a
	// claim waits for, and reads a snapshot no older than the call. Its cost must grow
	// with min(count, atMost), never with the table or with other owners' alarms: a
	// walk of an index on (owner, status) that stops after atMost entries.
	CountActive(ctx context.Context, owner string, atMost int) (int, error)
}

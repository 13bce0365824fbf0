package app

import "time"

// StoreCallTimeout bounds each store call the node's own loops make: the dispatcher's
// (there at most half the lease, dispatch.Config), the heartbeat's and the pause
// gate's. A connection a network fault left hanging never answers, and a loop waiting
// on it without a deadline would stop for good; with one, a dead connection costs one
// timeout (docs/reliability.md, "Network faults"). The calls take milliseconds: 10 s is
// far above that on a loaded database and still brings a node back within seconds.
const StoreCallTimeout = 10 * time.Second

package app

import "time"

// StoreCallTimeout bounds each store call the node's own loops make: the dispatcher's
// (there at most half the lease, see DispatcherConfig.storeTimeout), the heartbeat's and
// the pause gate's. The drivers wait as long as their context lets them, and a
// connection a network fault left hanging (no answer and no reset, as behind a firewall
// or NAT that dropped its state, or a database host that froze) never answers: a call
// without a deadline waited on it, and the loop that made it stopped for good, until
// the process was restarted (test/e2e TestFaultNetwork). With a deadline a dead
// connection costs one timeout: the driver closes it and the next call gets a fresh
// one. These calls take milliseconds; 10 s is far above that on a loaded database and
// still brings a node back within seconds of its network.
const StoreCallTimeout = 10 * time.Second

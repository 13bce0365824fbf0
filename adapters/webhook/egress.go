package webhook

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// egressDialer is the default transport's dialer with policy checked on each address
// it connects to. Control runs after name resolution, once per address tried, so a
// name that resolves (or is re-pointed) to a refused address is refused, and a name
// with several addresses is connected to an allowed one if it has any.
func egressDialer(policy domain.EgressPolicy) *net.Dialer {
	return &net.Dialer{
		Timeout:   30 * time.Second, // the default transport's
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("webhook: egress check: unexpected address %q: %w", address, err)
			}
			return policy.Check(ap.Addr())
		},
	}
}

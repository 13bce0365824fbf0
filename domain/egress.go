package domain

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Egress: where a node may connect to deliver a wake to an owner's endpoint. The owner
// reads the receiver's answer back in the attempt log, so an endpoint URL that pointed
// into the node's own network (a database's admin port, a cloud's metadata service)
// would make the node a probe of it. By default a wake to an endpoint or a failure_url
// reaches none of the ranges below; the operator allows ranges by name
// (--endpoint-allow-cidr). The node checks the address it actually connects to, after
// DNS, so a name re-pointed after registration is caught too; a URL written as an
// address is refused when it is registered already (EgressPolicy.CheckURL). The
// operator's own --wake-url is not an owner's and is not checked.

// Egress classes: why an address is refused (EgressError.Class).
const (
	EgressUnspecified = "unspecified" // 0.0.0.0/8, ::
	EgressLoopback    = "loopback"    // 127.0.0.0/8, ::1
	EgressPrivate     = "private"     // RFC 1918, IPv6 unique local fc00::/7 and site-local fec0::/10
	EgressLinkLocal   = "link-local"  // 169.254.0.0/16 (cloud metadata services), fe80::/10
	EgressCGNAT       = "CGNAT"       // shared address space 100.64.0.0/10 (RFC 6598)
	EgressMulticast   = "multicast"   // 224.0.0.0/4, ff00::/8
	EgressReserved    = "reserved"    // 192.0.0.0/24, 198.18.0.0/15 (benchmarking), 240.0.0.0/4 (broadcast included)
)

// EgressClasses lists every class, in the order above.
var EgressClasses = []string{EgressUnspecified, EgressLoopback, EgressPrivate, EgressLinkLocal, EgressCGNAT,
	EgressMulticast, EgressReserved}

var refusedRanges = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), EgressUnspecified},
	{netip.MustParsePrefix("::/128"), EgressUnspecified},
	{netip.MustParsePrefix("127.0.0.0/8"), EgressLoopback},
	{netip.MustParsePrefix("::1/128"), EgressLoopback},
	{netip.MustParsePrefix("10.0.0.0/8"), EgressPrivate},
	{netip.MustParsePrefix("172.16.0.0/12"), EgressPrivate},
	{netip.MustParsePrefix("192.168.0.0/16"), EgressPrivate},
	{netip.MustParsePrefix("fc00::/7"), EgressPrivate},
	{netip.MustParsePrefix("fec0::/10"), EgressPrivate},
	{netip.MustParsePrefix("169.254.0.0/16"), EgressLinkLocal},
	{netip.MustParsePrefix("fe80::/10"), EgressLinkLocal},
	{netip.MustParsePrefix("100.64.0.0/10"), EgressCGNAT},
	{netip.MustParsePrefix("224.0.0.0/4"), EgressMulticast},
	{netip.MustParsePrefix("ff00::/8"), EgressMulticast},
	{netip.MustParsePrefix("192.0.0.0/24"), EgressReserved},
	{netip.MustParsePrefix("198.18.0.0/15"), EgressReserved},
	{netip.MustParsePrefix("240.0.0.0/4"), EgressReserved},
}

// IPv6 ranges that carry an IPv4 address a connection may end up at: IPv4-mapped and
// IPv4-compatible (the last 4 bytes), NAT64's well-known prefix (the last 4) and 6to4
// (bytes 2 to 5). Each is checked as the IPv4 address too.
var embeddingRanges = []struct {
	prefix netip.Prefix
	at     int // where the IPv4 address starts in the 16 bytes
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), 12},
	{netip.MustParsePrefix("::/96"), 12},
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// EgressPolicy decides which addresses wakes to the owners' endpoints may reach. The
// zero value refuses every class above; NewEgressPolicy allows ranges on top of that.
type EgressPolicy struct {
	allow []netip.Prefix
}

// NewEgressPolicy is the policy that allows connections into the allow ranges, even
// where they overlap a refused class (127.0.0.0/8 lets endpoints on loopback through).
func NewEgressPolicy(allow []netip.Prefix) EgressPolicy {
	p := EgressPolicy{allow: make([]netip.Prefix, len(allow))}
	for i, a := range allow {
		p.allow[i] = a.Masked()
	}
	return p
}

// EgressError is a connection the policy refused: nothing was sent to the address. Its
// text is what the attempt log and last_error show.
type EgressError struct {
	Addr  netip.Addr
	Class string // one of EgressClasses
}

func (e *EgressError) Error() string {
	return fmt.Sprintf("egress refused: %s is %s; see --endpoint-allow-cidr", e.Addr, e.Class)
}

// Check returns nil when the policy lets a connection to addr through, else an
// *EgressError saying which class refused it. An IPv6 address that embeds an IPv4 one
// (::ffff:127.0.0.1) is judged as both: an allowed range matching either lets it
// through, a refused class of either refuses it.
func (p EgressPolicy) Check(addr netip.Addr) error {
	addr = addr.WithZone("")
	forms := []netip.Addr{addr}
	if v4, ok := embeddedIPv4(addr); ok {
		forms = append(forms, v4)
	}
	for _, a := range forms {
		for _, allowed := range p.allow {
			if allowed.Contains(a) {
				return nil
			}
		}
	}
	for _, a := range forms {
		for _, r := range refusedRanges {
			if r.prefix.Contains(a) {
				return &EgressError{Addr: addr, Class: r.class}
			}
		}
	}
	return nil
}

// embeddedIPv4 returns the IPv4 address an IPv6 address of embeddingRanges carries.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	for _, r := range embeddingRanges {
		if r.prefix.Contains(a) {
			return netip.AddrFrom4([4]byte(b[r.at : r.at+4])), true
		}
	}
	return netip.Addr{}, false
}

// CheckURL refuses, as a *ValidationError naming field, a URL whose host is an address
// the policy refuses, written in any form a resolver reads as one: "127.0.0.1",
// "[::ffff:127.0.0.1]", and the shorthand inet_aton takes ("127.1", "2130706433",
// "0x7f.1", "0177.0.0.1"). A host made of numbers that is none of these is refused
// too: no resolver would find a name in it. A host name passes: what it resolves to is
// checked when the node connects. An empty or unparsable URL passes (ValidateEndpoint
// refuses it).
func (p EgressPolicy) CheckURL(field, raw string) error {
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		return nil
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	addr, err := netip.ParseAddr(host)
	if err != nil {
		var numeric bool
		if addr, numeric = parseIPv4Shorthand(host); !numeric {
			return nil // a host name
		}
		if !addr.IsValid() {
			return invalid(field, "has the host %q, which is neither a host name nor an IP address", host)
		}
	}
	if err := p.Check(addr); err != nil {
		e := err.(*EgressError)
		return invalid(field, "points at %s, a %s address this server does not deliver to (its operator allows ranges with --endpoint-allow-cidr)", e.Addr, e.Class)
	}
	return nil
}

// parseIPv4Shorthand reads host as inet_aton does: 1 to 4 numbers separated by dots,
// each decimal, octal (a leading 0) or hex (0x), the last filling the bytes left, so
// "127.1" is 127.0.0.1 and "2130706433" is too. numeric reports a host made only of
// such numbers; addr is invalid when they make no address (too many, or too large).
func parseIPv4Shorthand(host string) (addr netip.Addr, numeric bool) {
	parts := strings.Split(host, ".")
	vals := make([]uint64, len(parts))
	for i, part := range parts {
		v, ok := parseInetNumber(part)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	if len(vals) > 4 {
		return netip.Addr{}, true
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, true
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, true
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// parseInetNumber reads one part of an inet_aton address: "0x7f", "0177", "127". A
// number past 32 bits reads as too large, not as a name.
func parseInetNumber(s string) (uint64, bool) {
	base := 10
	switch {
	case len(s) > 1 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err := strconv.ParseUint(s, base, 32)
	switch {
	case err == nil:
		return v, true
	case errors.Is(err, strconv.ErrRange):
		return 1 << 32, true
	}
	return 0, false
}

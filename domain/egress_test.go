package domain

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// The default policy refuses every address an owner's endpoint could use to reach into
// the node's own network, whatever form it is written in, and lets public ones through.
func TestEgressPolicyRefusesInternalAddresses(t *testing.T) {
	var p EgressPolicy
	for _, c := range []struct {
		addr  string
		class string // "": allowed
	}{
		{"127.0.0.1", EgressLoopback},
		{"127.255.0.9", EgressLoopback},
		{"::1", EgressLoopback},
		{"::ffff:127.0.0.1", EgressLoopback},
		{"::127.0.0.1", EgressLoopback},     // IPv4-compatible
		{"64:ff9b::7f00:1", EgressLoopback}, // NAT64 of 127.0.0.1
		{"2002:7f00:1::1", EgressLoopback},  // 6to4 of 127.0.0.1
		{"0.0.0.0", EgressUnspecified},
		{"0.1.2.3", EgressUnspecified},
		{"::", EgressUnspecified},
		{"10.0.0.7", EgressPrivate},
		{"172.16.0.1", EgressPrivate},
		{"172.31.255.255", EgressPrivate},
		{"192.168.1.1", EgressPrivate},
		{"::ffff:10.1.2.3", EgressPrivate},
		{"fd12:3456::1", EgressPrivate},
		{"fc00::1", EgressPrivate},
		{"fec0::1", EgressPrivate},
		{"169.254.169.254", EgressLinkLocal},
		{"fe80::1", EgressLinkLocal},
		{"fe80::1%eth0", EgressLinkLocal},
		{"fd00:ec2::254", EgressPrivate}, // the AWS metadata service over IPv6
		{"100.64.0.1", EgressCGNAT},
		{"100.127.255.254", EgressCGNAT},
		{"224.0.0.1", EgressMulticast},
		{"239.255.255.250", EgressMulticast},
		{"ff02::1", EgressMulticast},
		{"255.255.255.255", EgressReserved},
		{"198.18.0.1", EgressReserved},
		{"192.0.0.8", EgressReserved},
		// public: allowed
		{"93.184.216.34", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"192.169.0.1", ""},
		{"2606:2800:220:1::1", ""},
		{"::ffff:93.184.216.34", ""},
		{"64:ff9b::5db8:d822", ""},
	} {
		err := p.Check(netip.MustParseAddr(c.addr))
		var refused *EgressError
		switch {
		case c.class == "" && err != nil:
			t.Errorf("%s: refused (%v), want allowed", c.addr, err)
		case c.class != "" && !errors.As(err, &refused):
			t.Errorf("%s: %v, want refused as %s", c.addr, err, c.class)
		case c.class != "" && refused.Class != c.class:
			t.Errorf("%s: refused as %s, want %s", c.addr, refused.Class, c.class)
		}
	}
}

// A refusal says which address, why, and where to allow it, in the words the attempt
// log shows.
func TestEgressErrorText(t *testing.T) {
	err := EgressPolicy{}.Check(netip.MustParseAddr("127.0.0.1"))
	if got, want := err.Error(), "egress refused: 127.0.0.1 is loopback; see --endpoint-allow-cidr"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

// An allowed range lets its addresses through, in either form of an embedded IPv4
// address, and nothing else.
func TestEgressPolicyAllowsRanges(t *testing.T) {
	p := NewEgressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.1.2.3/16")})
	for addr, allowed := range map[string]bool{
		"127.0.0.1":        true,
		"::ffff:127.0.0.1": true,
		"10.1.9.9":         true, // the range is masked: 10.1.0.0/16
		"10.2.0.1":         false,
		"::1":              false, // loopback over IPv6 is another range
		"169.254.169.254":  false,
	} {
		if err := p.Check(netip.MustParseAddr(addr)); (err == nil) != allowed {
			t.Errorf("%s: %v, want allowed %v", addr, err, allowed)
		}
	}
}

// A URL written with a refused address is refused when registered, naming the field,
// in every spelling a resolver reads as that address; a host name is left to the
// check at connect time.
func TestEgressPolicyCheckURL(t *testing.T) {
	var p EgressPolicy
	for _, c := range []struct {
		url     string
		refused string // the address the message names; "": passes
	}{
		{"http://127.0.0.1:8080/w", "127.0.0.1"},
		{"http://127.1/w", "127.0.0.1"},
		{"http://2130706433/w", "127.0.0.1"},
		{"http://0x7f.1/w", "127.0.0.1"},
		{"http://0x7F000001/w", "127.0.0.1"},
		{"http://0177.0.0.1/w", "127.0.0.1"},
		{"http://127.0.0.1./w", "127.0.0.1"},
		{"http://[::1]:9000/w", "::1"},
		{"http://[::ffff:127.0.0.1]/w", "::ffff:127.0.0.1"},
		{"http://[::ffff:7f00:1]/w", "::ffff:127.0.0.1"},
		{"http://[fe80::1%25eth0]/w", "fe80::1"},
		{"http://0.0.0.0/w", "0.0.0.0"},
		{"http://0/w", "0.0.0.0"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
		{"http://10.0.0.1/w", "10.0.0.1"},
		{"https://93.184.216.34/w", ""},
		{"https://hooks.example.com/w", ""},
		{"https://localhost:8443/w", ""}, // a name: refused when the node connects
		{"https://1.example.com/w", ""},
		{"", ""},
	} {
		err := p.CheckURL("url", c.url)
		var ve *ValidationError
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v, want it to pass", c.url, err)
		case c.refused != "" && (!errors.As(err, &ve) || ve.Field != "url" || !strings.Contains(ve.Message, "points at "+c.refused+",") ||
			!strings.Contains(ve.Message, "--endpoint-allow-cidr")):
			t.Errorf("%s: %v, want a refusal of url naming %s and the flag", c.url, err, c.refused)
		}
	}
	// Numbers that make no address are no host name either.
	for _, raw := range []string{"http://1.2.3.4.5/w", "http://4294967296/w", "http://256.0.0.1/w", "http://1.0x1000000/w"} {
		if err := p.CheckURL("failure_url", raw); err == nil || !strings.Contains(err.Error(), "neither a host name nor an IP address") {
			t.Errorf("%s: %v, want a refusal", raw, err)
		}
	}
	allowed := NewEgressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	if err := allowed.CheckURL("url", "http://127.1:8080/w"); err != nil {
		t.Errorf("an allowed range: %v", err)
	}
}

func TestParseIPv4Shorthand(t *testing.T) {
	for host, want := range map[string]string{
		"127.1":        "127.0.0.1",
		"127.0.1":      "127.0.0.1",
		"2130706433":   "127.0.0.1",
		"0x7f.1":       "127.0.0.1",
		"0x7f.0.0.01":  "127.0.0.1",
		"10.0x10203":   "10.1.2.3",
		"1.2.3.4":      "1.2.3.4",
		"017700000001": "127.0.0.1",
	} {
		got, numeric := parseIPv4Shorthand(host)
		if !numeric || !got.IsValid() || got.String() != want {
			t.Errorf("%q = %v (numeric %v), want %s", host, got, numeric, want)
		}
	}
	for _, host := range []string{"example.com", "a.1", "1.a", "127..1", "08.1"} {
		if _, numeric := parseIPv4Shorthand(host); numeric {
			t.Errorf("%q read as numeric", host)
		}
	}
}

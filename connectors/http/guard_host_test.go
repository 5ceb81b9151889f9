package http

import (
	"net/netip"
	"testing"
)

// The Host check must hold on every connection, not only loopback ones: a page rebound by DNS
// to this server's address (loopback or LAN) sends its own, attacker-controlled name as Host.
func TestTheHostCheckAcceptsOnlyNamesOfThisServer(t *testing.T) {
	listed := &guard{hosts: map[string]bool{"mcp.internal": true, "fd00::1": true}}
	off := &guard{anyHost: true}
	var (
		loop   = netip.MustParseAddr("127.0.0.1")
		lan    = netip.MustParseAddr("192.168.1.10")
		lan6   = netip.MustParseAddr("fd00::5")
		mapped = netip.MustParseAddr("::ffff:192.168.1.10") // an IPv4 client of a dual-stack listener
	)
	cases := []struct {
		name  string
		g     *guard
		host  string
		local netip.Addr
		want  verdict
	}{
		{"on loopback, localhost passes", listed, "localhost:8080", loop, pass},
		{"on loopback, the own address passes", listed, "127.0.0.1:8080", loop, pass},
		{"on loopback, [::1] passes", listed, "[::1]:8080", loop, pass},
		{"on loopback, a foreign name is refused", listed, "evil.example:8080", loop, badHost},
		{"on loopback, a LAN address is refused", listed, "192.168.1.10:8080", loop, badHost},
		{"on loopback, an allowedHosts name passes", listed, "mcp.internal:8443", loop, pass},
		{"on a LAN address, a foreign name is refused (DNS rebinding)", listed, "evil.example:8080", lan, badHost},
		{"on a LAN address, a name that only starts like localhost is refused", listed, "localhost.evil.example:8080", lan, badHost},
		{"on a LAN address, the address it arrived on passes", listed, "192.168.1.10:8080", lan, pass},
		{"on a LAN address, that address without a port passes", listed, "192.168.1.10", lan, pass},
		{"on a LAN address, another address is refused", listed, "192.168.1.11:8080", lan, badHost},
		{"on a LAN address, an allowedHosts name passes", listed, "MCP.internal", lan, pass},
		{"on a LAN address, an allowedHosts address passes", listed, "[fd00::1]:80", lan, pass},
		{"on a LAN address, localhost passes (a tunnel or a container's port map)", listed, "localhost:9000", lan, pass},
		{"on a LAN address, an empty Host (HTTP/1.0) passes", listed, "", lan, pass},
		{"on an IPv6 LAN address, that address passes", listed, "[FD00::5]:8080", lan6, pass},
		{"on an IPv6 LAN address, a foreign name is refused", listed, "evil.example", lan6, badHost},
		{"through a dual-stack listener, the IPv4 address passes", listed, "192.168.1.10:8080", mapped.Unmap(), pass},
		{"with allowedHosts [*], a foreign name passes on a LAN address", off, "evil.example:8080", lan, pass},
		{"with no local address known, a foreign name is refused", listed, "evil.example", netip.Addr{}, badHost},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.g.decide("POST", nil, c.host, false, c.local); got != c.want {
				t.Fatalf("decide(Host %q on %v) = %d, want %d", c.host, c.local, got, c.want)
			}
		})
	}
}

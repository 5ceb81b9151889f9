package http

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// Per-client caps: what one remote address may hold of the connector, so that a single client
// (or a single attacker) cannot take every connection or stream. A client is its IP address,
// but for loopback: 127.0.0.1 and ::1 are a client each, and every other loopback address
// together is one more (clientOf), since 127/8 holds 16 million addresses any local process
// can use at will, each of which would otherwise bring a share of its own. Behind a reverse
// proxy every request comes from the proxy's address, so raise the caps there.

// clientCounts counts what each remote address holds against a cap.
type clientCounts struct {
	max    int
	mu     sync.Mutex
	n      map[netip.Addr]int
	warned map[netip.Addr]bool // addresses refused since they last held nothing
}

func newClientCounts(max int) *clientCounts {
	return &clientCounts{max: max, n: map[netip.Addr]int{}, warned: map[netip.Addr]bool{}}
}

// take counts one more for a, unless a is at the cap. firstRefusal is true on the first
// refusal since a last held nothing, so a refusal is logged once per burst, not per attempt.
func (c *clientCounts) take(a netip.Addr) (ok, firstRefusal bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[a] >= c.max {
		first := !c.warned[a]
		c.warned[a] = true
		return false, first
	}
	c.n[a]++
	return true, false
}

// setMax changes the cap: a port's connection cap follows the connector that serves it.
func (c *clientCounts) setMax(max int) {
	c.mu.Lock()
	c.max = max
	c.mu.Unlock()
}

// limit returns the cap.
func (c *clientCounts) limit() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.max
}

// give counts one less for a, forgetting a once it holds nothing.
func (c *clientCounts) give(a netip.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[a]--; c.n[a] <= 0 {
		delete(c.n, a)
		delete(c.warned, a)
	}
}

// addrIP is the IP of a TCP address (the zero Addr for anything else), without the
// IPv4-in-IPv6 wrapping a dual-stack listener adds.
func addrIP(a net.Addr) netip.Addr {
	if tcp, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(tcp.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}

// remoteClient is who the request's client counts as (clientOf its address).
func remoteClient(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return clientOf(ap.Addr().Unmap())
}

// otherLoopback stands for every loopback address but 127.0.0.1 and ::1.
var otherLoopback = netip.PrefixFrom(netip.AddrFrom4([4]byte{127}), 8).Addr()

// clientOf is the client an address counts as: itself, but that loopback addresses other than
// 127.0.0.1 and ::1 count as one.
func clientOf(a netip.Addr) netip.Addr {
	if a.IsLoopback() && a != netip.IPv6Loopback() && a != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return otherLoopback
	}
	return a
}

// clientName is how a client shows in a message.
func clientName(a netip.Addr) string {
	if a == otherLoopback {
		return "the loopback addresses other than 127.0.0.1 (one client together)"
	}
	return a.String()
}

// capListener closes, at once and without an answer, a connection from an address that
// already holds maxConnsPerClient. An answer would need the request read first (closing with
// it unread makes the kernel reset the connection, and the client would likely never see the
// answer), and reading costs a goroutine and time per refused connection: exactly what the
// cap is there to stop. A well-behaved client never opens that many connections.
type capListener struct {
	net.Listener
	conns   *clientCounts
	log     *slog.Logger
	refused func() // counts a refusal
}

// Accept returns the next connection within the cap.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		a := clientOf(addrIP(conn.RemoteAddr()))
		ok, first := l.conns.take(a)
		if ok {
			return &countedConn{Conn: conn, release: func() { l.conns.give(a) }}, nil
		}
		_ = conn.Close()
		l.refused()
		if first {
			l.log.Warn("too many connections from one address; closing new ones until some end", "remote", clientName(a), "limit", l.conns.limit())
		}
	}
}

// countedConn gives its count back when it closes.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and gives its count back, once.
func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite half-closes the connection, as net/http does before closing, so a client that
// is still sending is not reset before it reads the answer.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

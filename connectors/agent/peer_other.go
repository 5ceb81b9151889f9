//go:build !linux

package agent

import "net"

// peerUID cannot tell who opened a loopback connection on this system: every connection goes
// to the handshake.
func peerUID(net.Conn) (int, bool) { return 0, false }

package agent

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
)

// peerUID is the user id of the process that opened the other end of conn, a TCP connection on
// 127.0.0.1, as the kernel tells it in /proc/net/tcp: the socket whose local address is conn's
// remote one, and the other way round. ok is false when it cannot be told (no /proc, the line
// gone because the peer closed already).
func peerUID(conn net.Conn) (uid int, ok bool) {
	local, lok := conn.LocalAddr().(*net.TCPAddr)
	remote, rok := conn.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok || remote.IP.To4() == nil || local.IP.To4() == nil {
		return 0, false
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	theirs, ours := procAddr(remote), procAddr(local)
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 8 || !bytes.Equal(fields[1], theirs) || !bytes.Equal(fields[2], ours) {
			continue
		}
		n, err := strconv.Atoi(string(fields[7]))
		return n, err == nil
	}
	return 0, false
}

// procAddr writes a as /proc/net/tcp does: the IPv4 address as the kernel's 32-bit word in
// host byte order, then the port, both in upper-case hex.
func procAddr(a *net.TCPAddr) []byte {
	return fmt.Appendf(nil, "%08X:%04X", binary.NativeEndian.Uint32(a.IP.To4()), a.Port)
}

package runtimetest

import (
	"net"
	"testing"
)

// FreePort asks the kernel for a loopback port that is free right now, for a test that needs
// to know a port before it binds it (a reload that keeps it, a saved server that names it).
// Between now and the bind another process may take it: a test that only needs to reach what
// it serves writes port 0 and asks where it listens (Serve).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

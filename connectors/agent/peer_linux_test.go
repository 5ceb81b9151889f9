package agent

import (
	"net"
	"os"
	"testing"
)

// The kernel's record of a loopback connection names the user who opened it.
func TestPeerUIDNamesTheUserWhoOpenedTheConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in := <-accepted
	defer in.Close()
	if uid, ok := peerUID(in); !ok || uid != os.Getuid() {
		t.Fatalf("peerUID = %d, %v; want %d", uid, ok, os.Getuid())
	}
}

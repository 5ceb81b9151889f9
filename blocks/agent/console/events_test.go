package console_test

import (
	"fmt"
	"net"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/session"
)

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// openRaw sends a GET of the live stream on a socket of its own and reads nothing back.
func (f *fixture) openRaw(query string) net.Conn {
	f.t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10) // the kernel holds little for it
	req := "GET /api/events?" + strings.TrimPrefix(query, "&") + " HTTP/1.1\r\nHost: " + host + "\r\nCookie: " + f.cookie + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		f.t.Fatal(err)
	}
	return conn
}

// Live streams whose pages never read cost the console at most an event each, not the traffic
// they miss; pages that leave at once are let go; another page's stream and the API go on.
func TestStreamsThatAreNotReadHoldBoundedMemoryAndOthersAreServed(t *testing.T) {
	f := newFixture(t)
	live := f.openEvents("&only=traffic")
	live.waitFor(t, "hello")
	for range 4 { // pages that leave at once
		f.openRaw("").Close()
	}
	const stalled = 4
	for range stalled {
		f.openRaw("")
		f.openRaw("&only=traffic")
	}
	before := heapInUse()
	const entries, message = 4000, 4 << 10 // 16 MB of traffic that every stream would carry
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", message) + `"}}`)
	for i := range entries {
		f.app.Store().Observe("Weather", session.TrafficEvent{Time: time.Now(), Session: "s", Transport: "http",
			Direction: session.DirOut, Kind: session.TrafficNotification, Method: "notifications/message",
			Summary: fmt.Sprintf("notifications/message %d", i), Message: msg})
	}
	live.waitFor(t, "traffic")
	if s := f.state(); len(s.Servers) != 1 {
		t.Fatalf("state %+v", s)
	}
	_, stored := f.app.Store().Len()
	// Each of the 2×stalled streams may hold a batch (200 entries, some 850 KB of JSON) in a
	// few copies while it is written: about 3 MB were seen, 4 MB are allowed. A stream that
	// kept what it missed would hold all 16 MB again.
	bound := uint64(stored) + 2*stalled*4<<20 + 16<<20
	after := heapInUse()
	if after > before+bound {
		t.Fatalf("the heap grew from %d to %d bytes (the store holds %d) with %d streams not read",
			before, after, stored, 2*stalled)
	}
}

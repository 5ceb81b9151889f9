package http_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// firehoseEvent is one event of the test-firehose stream: 64 KiB, sent as fast as it is taken.
var firehoseEvent = bytes.Repeat([]byte("f"), 64<<10)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-firehose", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			m.SetStream(firehose{})
			return m, nil
		}), nil
	})})
}

type firehose struct{}

func (firehose) Next(ctx context.Context) (runtime.Event, error) {
	if err := ctx.Err(); err != nil {
		return runtime.Event{}, err
	}
	return runtime.Event{Name: "f", Data: firehoseEvent}, nil
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Streams whose clients never read hold up only their own writers (the connector keeps an
// event each, not what they miss) while another stream, a call and a client that left at
// once are served. Stop ends the read stream and, its time out (writeTimeout is a minute),
// closes the unread ones and says it ran out of time.
func TestStreamsNobodyReadsHoldBoundedMemoryAndStopClosesThem(t *testing.T) {
	base, svc, logs := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, writeTimeout: 1m } }
flows:
  - { name: fire, source: { connector: api, settings: { path: /fire } }, process: [ { type: test-firehose } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	host := strings.TrimPrefix(base, "http://")
	raw := func() net.Conn {
		t.Helper()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		if _, err := io.WriteString(conn, "GET /fire HTTP/1.1\r\nHost: "+host+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	for range 4 { // clients that leave at once
		raw().Close()
	}
	before := heapInUse()
	const stalled = 8
	unread := make([]net.Conn, stalled)
	for i := range unread {
		unread[i] = raw()
	}
	reader := raw()
	_ = reader.SetReadDeadline(time.Now().Add(20 * time.Second))
	const read = 64 << 20 // 1024 events
	if n, err := io.CopyN(io.Discard, reader, read); err != nil {
		t.Fatalf("the read stream stopped after %d bytes: %v\n%s", n, err, logs)
	}
	client := newClient(t)
	if status, _, body := post(t, client, base+"/echo", `{"a":1}`); status != 200 {
		t.Fatalf("a call while streams are unread: %d %s", status, body)
	}
	// Each unread stream may hold an event or two being written (64 KiB each) and its
	// connection's buffers; one that kept what it missed would hold 64 MB.
	if after := heapInUse(); after > before+stalled*1<<20+8<<20 {
		t.Fatalf("the heap grew from %d to %d bytes with %d streams unread", before, after, stalled)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- svc.Stop(ctx) }()
	if _, err := io.Copy(io.Discard, bufio.NewReader(reader)); err != nil {
		t.Fatalf("the read stream did not end: %v", err)
	}
	select {
	case err := <-stopped: // out of time (the unread streams never finish): it says so
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Stop: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return within 10 s of a 2 s grace period")
	}
	for i, conn := range unread { // what was buffered, then the end
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, conn); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("unread stream %d was not closed: %v", i, err)
		}
	}
}

package http_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// bigAnswer is more than loopback socket buffers hold, so writing it to a
// client that does not read blocks.
const bigAnswer = 16 << 20

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-big", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		body := bytes.Repeat([]byte("a"), bigAnswer)
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			m.SetRaw(body)
			return m, nil
		}), nil
	})})
}

const writeTimeoutConfig = `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 1, writeTimeout: 200ms } }
flows:
  - { name: big, source: { connector: api, settings: { path: /big } }, process: [ { type: test-big } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`

// A client that asks for a large answer and reads none of it holds the one
// in-flight slot only until writeTimeout passes without progress; then its
// connection is closed and others are served again.
func TestAnAnswerAClientDoesNotReadIsCutAfterWriteTimeout(t *testing.T) {
	base, _ := start(t, writeTimeoutConfig)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.4")}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", base[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /big HTTP/1.1\r\nHost: "+base[len("http://"):]+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The answer has begun, so its request holds the slot; nothing more is
	// read until the slot is free again.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	client := newClient(t)
	eventually(t, func() bool {
		status, _, _ := post(t, client, base+"/echo", `{"a":1}`)
		return status == 200
	})
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, conn)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the connection was not closed: %v", err)
	}
	if n >= bigAnswer {
		t.Fatalf("the whole answer (%d bytes) was sent", n)
	}
}

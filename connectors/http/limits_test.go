package http_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// gate lets a test hold requests inside a flow: test-hold blocks announce themselves on
// entered and wait for release (or for the client to leave).
var gate struct {
	sync.Mutex
	entered chan struct{}
	release chan struct{}
}

func openGate(t *testing.T) (entered, release chan struct{}) {
	gate.Lock()
	defer gate.Unlock()
	gate.entered, gate.release = make(chan struct{}, 64), make(chan struct{})
	return gate.entered, gate.release
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-hold", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
			gate.Lock()
			entered, release := gate.entered, gate.release
			gate.Unlock()
			entered <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return m, nil
		}), nil
	})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-panic", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(context.Context, *runtime.Message) (*runtime.Message, error) {
			var m map[string]int
			m["boom"]++ // a nil-map write: the kind of bug a block could have
			return nil, nil
		}), nil
	})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-stream-panic", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			m.SetStream(&panicky{})
			return m, nil
		}), nil
	})})
}

// panicky sends one event, then panics.
type panicky struct{ sent bool }

func (p *panicky) Next(context.Context) (runtime.Event, error) {
	if !p.sent {
		p.sent = true
		return runtime.Event{Data: []byte("first")}, nil
	}
	panic("stream exploded")
}

// startLogged starts a config written to a temporary folder, capturing its
// log; the service stops when the test ends.
func startLogged(t *testing.T, yaml string) (string, *runtime.Service, *runtimetest.Buffer) {
	t.Helper()
	return startObserved(t, yaml, nil)
}

// startObserved is startLogged with the service measured by obs (nil: not).
func startObserved(t *testing.T, yaml string, obs runtime.Observer) (string, *runtime.Service, *runtimetest.Buffer) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	logs := &runtimetest.Buffer{}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(runtime.LogRequestIDs(slog.NewTextHandler(logs, nil))), Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return "http://" + svc.Connector("api").(*octohttp.Connector).Addr(), svc, logs
}

func get(t *testing.T, client *http.Client, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func newClient(t *testing.T) *http.Client {
	c := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestRequestsBeyondMaxInFlightGetA503WithRetryAfter(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 2 } }
flows:
  - { name: hold, source: { connector: api, settings: { path: /hold } }, process: [ { type: test-hold } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	entered, release := openGate(t)
	client := newClient(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(base + "/hold")
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 2 {
		<-entered
	}
	status, h, body := get(t, client, base+"/echo")
	if status != 503 || h.Get("Retry-After") != "1" || body != `{"error":"too many requests in flight (limit 2); retry shortly"}` {
		t.Fatalf("third request got %d Retry-After %q %s", status, h.Get("Retry-After"), body)
	}
	close(release)
	wg.Wait()
	if status, _, _ := get(t, client, base+"/echo"); status != 200 {
		t.Fatalf("after the held requests ended got %d, want 200", status)
	}
}

func TestOpenStreamsAreCountedApartFromCalls(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 1, maxStreams: 1 } }
flows:
  - { name: stream, source: { connector: api, settings: { path: /stream } }, process: [ { type: test-stream } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	client := newClient(t)
	first := openStream(t, client, base+"/stream")

	t.Run("a call is served while a stream holds the only stream slot", func(t *testing.T) {
		if status, _, _ := get(t, client, base+"/echo"); status != 200 {
			t.Fatalf("got %d, want 200", status)
		}
	})
	t.Run("a second stream is refused with 503 and Retry-After", func(t *testing.T) {
		status, h, body := get(t, client, base+"/stream")
		if status != 503 || h.Get("Retry-After") != "5" || body != `{"error":"too many open event streams (limit 1); retry later"}` {
			t.Fatalf("got %d Retry-After %q %s", status, h.Get("Retry-After"), body)
		}
	})
	t.Run("the slot is free again once the first stream closes", func(t *testing.T) {
		first.Close()
		eventually(t, func() bool { return streamOpens(client, base+"/stream") })
	})
}

// streamOpens reports whether a stream request gets a 200.
func streamOpens(client *http.Client, url string) bool {
	resp, err := client.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == 200
}

// openStream opens an event stream and reads its first event line.
func openStream(t *testing.T, client *http.Client, url string) io.ReadCloser {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("stream answered %d", resp.StatusCode)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return resp.Body
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAPanicInAFlowIsALogged500AndTheServerGoesOn(t *testing.T) {
	base, _, logs := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 1, maxStreams: 1 } }
flows:
  - { name: panic, source: { connector: api, settings: { path: /panic } }, process: [ { type: test-panic } ] }
  - { name: sp, source: { connector: api, settings: { path: /stream-panic } }, process: [ { type: test-stream-panic } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	client := newClient(t)
	t.Run("a panicking block answers 500 without internals", func(t *testing.T) {
		status, _, body := get(t, client, base+"/panic")
		if status != 500 || body != `{"error":"internal error"}` {
			t.Fatalf("got %d %s", status, body)
		}
		if !strings.Contains(logs.String(), "flows.panic.process[0] (test-panic): panic: ") || !strings.Contains(logs.String(), "assignment to entry in nil map") {
			t.Fatalf("the panic was not logged naming its block:\n%s", logs)
		}
	})
	t.Run("the in-flight slot of the panicking request is given back", func(t *testing.T) {
		if status, _, _ := get(t, client, base+"/echo"); status != 200 {
			t.Fatalf("got %d, want 200 (maxInFlight 1)", status)
		}
	})
	t.Run("a stream that panics is cut off and its slot given back", func(t *testing.T) {
		for i := range 2 { // maxStreams 1: the second would be refused if the first leaked
			resp, err := client.Get(base + "/stream-panic")
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), "data: first") || err == nil {
				t.Fatalf("stream %d: %d %q err %v, want the first event then a broken stream", i, resp.StatusCode, b, err)
			}
		}
		if !strings.Contains(logs.String(), "panic while streaming") {
			t.Fatalf("the stream panic was not logged:\n%s", logs)
		}
	})
}

func TestHeadersOverMaxHeaderBytesGet431(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxHeaderBytes: 1024 } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	for _, c := range []struct {
		name   string
		size   int
		status int
	}{
		{"a header within the limit is served", 512, 200},
		// net/http reads a few KiB past MaxHeaderBytes (more on a reused connection) before it
		// gives up, so the refused header is far over the limit.
		{"a header far over the limit is refused with 431", 64 << 10, 431},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := newClient(t)
			req, _ := http.NewRequest("GET", base+"/echo", nil)
			req.Header.Set("X-Big", strings.Repeat("a", c.size))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("got %d, want %d", resp.StatusCode, c.status)
			}
		})
	}
}

func TestSlowHeadersAndIdleConnectionsAreCutOff(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, readHeaderTimeout: 200ms, idleTimeout: 200ms } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	addr := strings.TrimPrefix(base, "http://")
	cases := []struct {
		name, send string
		answers    bool
	}{
		{"a client that never finishes its headers is disconnected", "GET /echo HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", false},
		{"an idle keep-alive connection is closed", "GET /echo HTTP/1.1\r\nHost: localhost\r\n\r\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, c.send); err != nil {
				t.Fatal(err)
			}
			// Well past the 200ms limits, far below the 10s and 2m defaults.
			_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			r := bufio.NewReader(conn)
			if c.answers {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("got %d", resp.StatusCode)
				}
			}
			if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
				t.Fatalf("read after the timeout = %v, want EOF (the server closed the connection)", err)
			}
		})
	}
}

// nested returns a tools/call whose arguments nest depth levels of arrays.
func nested(depth int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`
}

func TestJSONNestedTooDeeplyIsRefusedThroughTheRouter(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: echo
            description: echoes
            inputSchema: '{"type":"object"}'
            process: []
`)
	client := newClient(t)
	post := func(body string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The envelope, params and arguments add three levels to the arrays.
	t.Run("a body 64 levels deep is served", func(t *testing.T) {
		if status, body := post(nested(61)); status != 200 || strings.Contains(body, `"error"`) {
			t.Fatalf("got %d %s", status, body)
		}
	})
	t.Run("a body 65 levels deep is an invalid request naming the limit", func(t *testing.T) {
		status, body := post(nested(62))
		want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: JSON nested deeper than 64 levels at offset 148"}}`
		if status != 400 || body != want {
			t.Fatalf("got %d %s\nwant 400 %s", status, body, want)
		}
	})
	t.Run("a body nested a million levels deep is refused without a crash", func(t *testing.T) {
		if status, _ := post(nested(1_000_000)); status != 400 {
			t.Fatalf("got %d, want 400", status)
		}
	})
}

// stall opens a connection from the loopback address src and sends the headers of a POST whose
// body never comes. With expect100 it waits for the server's "100 Continue", which net/http
// sends when the handler starts reading the body: proof the request got that far. The
// connection closes when the test ends.
func stall(t *testing.T, addr, src string, expect100 bool) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
	if expect100 {
		head += "Expect: 100-continue\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if expect100 {
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := r.ReadString('\n')
		if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
			t.Fatalf("waiting for 100 Continue got %q %v", line, err)
		}
		if _, err := r.ReadString('\n'); err != nil { // the blank line ending the interim answer
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Time{})
	}
	return conn, r
}

func TestAStalledBodyIsAnswered408AndItsConnectionClosed(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, bodyTimeout: 300ms } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	conn, r := stall(t, strings.TrimPrefix(base, "http://"), "127.0.0.1", false)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // far past the 300ms bodyTimeout
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"error":"request body stalled: nothing arrived for 300ms (the connector's bodyTimeout)"}`
	if resp.StatusCode != 408 || string(b) != want {
		t.Fatalf("got %d %s, want 408 %s", resp.StatusCode, b, want)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("read after the 408 = %v, want EOF (the server closed the connection)", err)
	}
}

func TestABodyThatKeepsArrivingIsNotCutOffByBodyTimeout(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, bodyTimeout: 1s } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	// Six pieces a quarter second apart: 1.5s in all, longer than bodyTimeout, but never a
	// second without a byte. bodyTimeout bounds the silence, not the whole body.
	pieces := []string{`{"a"`, `:`, `[1,`, `2,`, `3]`, `}`}
	pr, pw := io.Pipe()
	go func() {
		for _, p := range pieces {
			time.Sleep(250 * time.Millisecond) // the client's pace is what this test is about
			if _, err := io.WriteString(pw, p); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", base+"/echo", pr)
	req.ContentLength = int64(len(strings.Join(pieces, "")))
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"a":[1,2,3]}` {
		t.Fatalf("got %d %s", resp.StatusCode, b)
	}
}

func TestAStalledBodyHoldsNoInFlightSlot(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 1 } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	addr := strings.TrimPrefix(base, "http://")
	for range 3 {
		stall(t, addr, "127.0.0.1", true)
	}
	if status, _, body := post(t, newClient(t), base+"/echo", `{"a":1}`); status != 200 || body != `{"a":1}` {
		t.Fatalf("with three bodies stalled and maxInFlight 1, a complete request got %d %s, want 200", status, body)
	}
}

func TestConnectionsBeyondMaxConnsPerClientAreClosedAtOnce(t *testing.T) {
	base, _, logs := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxConnsPerClient: 2 } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	addr := strings.TrimPrefix(base, "http://")
	stall(t, addr, "127.0.0.2", true)
	stall(t, addr, "127.0.0.2", true)
	t.Run("the address's next connection is closed without an answer", func(t *testing.T) {
		conn, r := stall(t, addr, "127.0.0.2", false)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if b, err := r.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read = %q %v, want the connection closed", b, err)
		}
		eventuallyLogged(t, logs, `too many connections from one address; closing new ones until some end" connector=api remote="the loopback addresses other than 127.0.0.1 (one client together)" limit=2`)
	})
	t.Run("another loopback address is the same client: 127/8 brings no more connections", func(t *testing.T) {
		conn, r := stall(t, addr, "127.0.0.3", false)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if b, err := r.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read = %q %v, want the connection closed", b, err)
		}
	})
	t.Run("127.0.0.1 is served", func(t *testing.T) {
		if status, _, _ := post(t, clientFrom(t, "127.0.0.1"), base+"/echo", `{}`); status != 200 {
			t.Fatalf("got %d, want 200", status)
		}
	})
}

func post(t *testing.T, client *http.Client, url, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func eventuallyLogged(t *testing.T, logs *runtimetest.Buffer, want string) {
	t.Helper()
	eventually(t, func() bool { return strings.Contains(logs.String(), want) })
}

// clientFrom is an http client whose connections come from the loopback address src.
func clientFrom(t *testing.T, src string) *http.Client {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 10 * time.Second}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestOneAddressCannotHoldMoreThanMaxStreamsPerClient(t *testing.T) {
	base, _, logs := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxStreams: 10, maxStreamsPerClient: 2 } }
flows:
  - { name: stream, source: { connector: api, settings: { path: /stream } }, process: [ { type: test-stream } ] }
`)
	greedy := clientFrom(t, "127.0.0.2")
	first := openStream(t, greedy, base+"/stream")
	defer first.Close()
	defer openStream(t, greedy, base+"/stream").Close()
	t.Run("the address's next stream is refused with 503 and Retry-After", func(t *testing.T) {
		status, h, body := get(t, greedy, base+"/stream")
		want := `{"error":"too many open event streams from the loopback addresses other than 127.0.0.1 (one client together) (limit 2 per client address); retry later"}`
		if status != 503 || h.Get("Retry-After") != "5" || body != want {
			t.Fatalf("got %d Retry-After %q %s\nwant 503 %s", status, h.Get("Retry-After"), body, want)
		}
		eventuallyLogged(t, logs, `msg="too many event streams from one address; refusing new ones until some end" connector=api remote="the loopback addresses other than 127.0.0.1 (one client together)" limit=2`)
	})
	t.Run("another loopback address is the same client", func(t *testing.T) {
		if status, _, _ := get(t, clientFrom(t, "127.0.0.3"), base+"/stream"); status != 503 {
			t.Fatalf("got %d, want 503", status)
		}
	})
	t.Run("127.0.0.1 still opens a stream", func(t *testing.T) {
		openStream(t, clientFrom(t, "127.0.0.1"), base+"/stream").Close()
	})
	t.Run("the address opens a stream again once one of its own closes", func(t *testing.T) {
		first.Close()
		eventually(t, func() bool { return streamOpens(greedy, base+"/stream") })
	})
}

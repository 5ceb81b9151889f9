package e2e

// The hostile-client suite's http connector part: clients that stall request bodies, hold too
// many connections or event streams from one address, and a user who presses Ctrl-C twice.

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// The connector's defaults the tests below lean on.
	httpBodyTimeout         = 5 * time.Second
	httpMaxConnsPerClient   = 256
	httpMaxStreamsPerClient = 128
	// Stalled requests from five loopback addresses besides 127.0.0.1: together they are one
	// client, so past maxConnsPerClient their connections are closed at once, however many
	// addresses they come from, and 127.0.0.1 is served beside them. (That a stalled body
	// holds no in-flight slot is connectors/http's TestAStalledBodyHoldsNoInFlightSlot.)
	stalledAddrs   = 5
	stalledOverCap = 20 // connections past maxConnsPerClient from them
)

// stallFrom sends, from the loopback address src, the headers of a POST /mcp whose 1,000-byte
// body never comes. The request asks for "100 Continue", which net/http sends when a handler
// starts reading the body, so the test knows how far the server took it; the first status
// line is returned ("" when the server closed the connection instead).
func stallFrom(t *testing.T, src, addr string) (*bufio.Reader, net.Conn, string) {
	t.Helper()
	conn := dialFrom(t, src, addr)
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the server neither answered nor closed a stalled request from %s in 10s", src)
		}
		return r, conn, ""
	}
	if _, err := r.ReadString('\n'); err != nil { // the blank line after "100 Continue"
		t.Fatal(err)
	}
	return r, conn, strings.TrimRight(line, "\r\n")
}

// needOpenFiles skips when this process may not open n more files.
func needOpenFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < n+256 {
		t.Skipf("needs %d open files; the limit is %d (%v)", n+256, lim.Cur, err)
	}
}

// wellBehaved is a well-behaved request and the answer it must get while the attack goes on.
type wellBehaved struct {
	name, token        string
	status             int
	bodyPrefix, header string
}

const initializeAnswerPrefix = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"`

func TestStalledBodiesDoNotStarveOtherClients(t *testing.T) {
	needOpenFiles(t, 2*(httpMaxConnsPerClient+stalledOverCap))
	// Both servers listen before either attack opens its ~280 connections, whose local ports
	// could otherwise take the port freePort picked for the second.
	router, routerProc := runSample(t, "mcp-router")
	port := strconv.Itoa(freePort(t))
	oauth := "http://127.0.0.1:" + port
	oauthProc := startOcto(t, []string{"HTTP_PORT=" + port, "MCP_RESOURCE=" + oauth + "/mcp"}, "run", "--config", "samples/mcp-oauth")
	token := mintToken(t, "--aud", oauth+"/mcp", "--iss", oauthIssuer, "--scope", "weather.read")
	t.Run("the router sample", func(t *testing.T) {
		t.Parallel()
		withStalledBodies(t, routerProc, router, []wellBehaved{{name: "initialize", status: 200, bodyPrefix: initializeAnswerPrefix}})
	})
	t.Run("the OAuth sample (jwt-validate in front)", func(t *testing.T) {
		t.Parallel()
		withStalledBodies(t, oauthProc, oauth, []wellBehaved{
			{name: "initialize without a token", status: 401, header: "WWW-Authenticate"},
			{name: "initialize with a token", token: token, status: 200, bodyPrefix: initializeAnswerPrefix},
		})
	})
}

// withStalledBodies stalls maxConnsPerClient request bodies from five loopback addresses, and
// sees the next 20 connections from them closed at once (they are one client together),
// checks that requests from 127.0.0.1 get their normal answers, and that every stalled
// request ends with a 408 and a closed connection once bodyTimeout passes.
func withStalledBodies(t *testing.T, p *proc, base string, want []wellBehaved) {
	addr := strings.TrimPrefix(base, "http://")
	type stalled struct {
		r    *bufio.Reader
		conn net.Conn
	}
	var waiting []stalled
	outer := t // the connections must outlive the subtest
	t.Run("connections past maxConnsPerClient from loopback addresses besides 127.0.0.1 are closed at once", func(t *testing.T) {
		for i := range httpMaxConnsPerClient + stalledOverCap {
			src := "127.0.0." + strconv.Itoa(2+i%stalledAddrs)
			r, conn, line := stallFrom(outer, src, addr)
			switch {
			case i < httpMaxConnsPerClient && line == "HTTP/1.1 100 Continue":
				waiting = append(waiting, stalled{r, conn})
			case i >= httpMaxConnsPerClient && line == "":
			default:
				t.Fatalf("connection %d from %s got %q (limit %d for them together)", i+1, src, line, httpMaxConnsPerClient)
			}
		}
	})
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	for _, w := range want {
		t.Run("from 127.0.0.1, "+w.name+" is answered", func(t *testing.T) {
			req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if w.token != "" {
				req.Header.Set("Authorization", "Bearer "+w.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != w.status || !strings.HasPrefix(string(b), w.bodyPrefix) || w.header != "" && resp.Header.Get(w.header) == "" {
				t.Fatalf("got %d %s (headers %v), want %d %s…", resp.StatusCode, b, resp.Header, w.status, w.bodyPrefix)
			}
		})
	}
	t.Run("every stalled request is answered 408 and closed after bodyTimeout", func(t *testing.T) {
		wantBody := `{"error":"request body stalled: nothing arrived for 5s (the connector's bodyTimeout)"}`
		for i, s := range waiting {
			_ = s.conn.SetReadDeadline(time.Now().Add(httpBodyTimeout + 10*time.Second))
			resp, err := http.ReadResponse(s.r, nil)
			if err != nil {
				t.Fatalf("stalled request %d: %v", i+1, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 408 || string(b) != wantBody {
				t.Fatalf("stalled request %d got %d %s, want 408 %s", i+1, resp.StatusCode, b, wantBody)
			}
			if _, err := s.r.ReadByte(); !errors.Is(err, io.EOF) {
				t.Fatalf("stalled request %d: read after the 408 = %v, want EOF", i+1, err)
			}
		}
	})
	// ~280 connections, each parked in a handler.
	assertPeakRSSUnder(t, p, 100)
}

func TestAServerListensOnLoopbackOnlyUnlessItsHostExposesIt(t *testing.T) {
	t.Run("a sample without host is reached on 127.0.0.1 and nowhere else", func(t *testing.T) {
		base, p := runSample(t, "hello")
		port := base[strings.LastIndexByte(base, ':')+1:]
		if !strings.Contains(p.Log(), "addr=http://127.0.0.1:"+port) {
			t.Fatalf("the log does not say it listens on 127.0.0.1:%s:\n%s", port, p.Log())
		}
		if a := do(t, "POST", base+"/greet", "application/json", `{"name":"Ada"}`); a.status != 200 {
			t.Fatalf("on 127.0.0.1 got %d %s", a.status, a.body)
		}
		// 127.0.0.2 is this machine too: a server bound to every interface would answer there.
		if c, err := net.DialTimeout("tcp", "127.0.0.2:"+port, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("dialing 127.0.0.2:%s = %v, want connection refused", port, err)
		}
	})
	t.Run("host: 0.0.0.0 exposes it, and the Host check still holds there", func(t *testing.T) {
		dir := t.TempDir()
		config := "connectors:\n  - { name: api, type: http, settings: { port: \"${HTTP_PORT}\", host: 0.0.0.0 } }\n" +
			"env:\n  - { name: HTTP_PORT }\nflows:\n  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }\n"
		if err := os.WriteFile(dir+"/echo.yaml", []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(freePort(t))
		startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir)
		other := "http://127.0.0.2:" + port + "/echo"
		if a := do(t, "POST", other, "application/json", `{"a":1}`); a.status != 200 || a.body != `{"a":1}` {
			t.Fatalf("on 127.0.0.2 got %d %s", a.status, a.body)
		}
		a := doAs(t, other, "evil.example:"+port, "", "")
		want := `{"error":"host evil.example:` + port + ` is not allowed on a loopback address (add it to the connector's allowedHosts)"}`
		if a.status != 403 || a.body != want {
			t.Fatalf("a rebound name got %d %s, want 403 %s", a.status, a.body, want)
		}
	})
}

// openSSE opens the legacy HTTP+SSE stream of a mock server from the loopback address src and
// returns the answer; a 200's body is left open, its first event read.
func openSSE(t *testing.T, src, addr string) (int, http.Header, string) {
	t.Helper()
	conn := dialFrom(t, src, addr)
	if _, err := io.WriteString(conn, "GET /sse HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("GET /sse from %s: %v", src, err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatalf("GET /sse from %s: reading the first event: %v", src, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return 200, resp.Header, line
}

func TestOneAddressCannotHoldEveryEventStream(t *testing.T) {
	url, p := serveWeatherMock(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	for i := range httpMaxStreamsPerClient {
		if status, _, first := openSSE(t, "127.0.0.2", addr); status != 200 || first != "event: endpoint\n" {
			t.Fatalf("stream %d from 127.0.0.2 got %d %q", i+1, status, first)
		}
	}
	t.Run("the address's next stream is refused with 503 and Retry-After", func(t *testing.T) {
		status, h, body := openSSE(t, "127.0.0.2", addr)
		want := `{"error":"too many open event streams from the loopback addresses other than 127.0.0.1 (one client together) (limit 128 per client address); retry later"}`
		if status != 503 || h.Get("Retry-After") != "5" || body != want {
			t.Fatalf("got %d Retry-After %q %s, want 503 %s", status, h.Get("Retry-After"), body, want)
		}
	})
	t.Run("another address still opens a stream", func(t *testing.T) {
		if status, _, first := openSSE(t, "127.0.0.1", addr); status != 200 || first != "event: endpoint\n" {
			t.Fatalf("got %d %q", status, first)
		}
	})
	assertPeakRSSUnder(t, p, 100)
}

// secondSignalStopsAtOnce sends a slow request and, once the log says it started, SIGTERM;
// it waits until the graceful stop has begun, sends SIGTERM again and expects the process to
// end promptly, non-zero, saying why, with the slow request cut off.
func secondSignalStopsAtOnce(t *testing.T, p *proc, slowReq *http.Request, started string) {
	t.Helper()
	slow := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(slowReq)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		slow <- err
	}()
	waitLog(t, p, started)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(t, p, "send the signal again to stop at once")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second): // the grace period is 30s: only a stop at once ends sooner
		t.Fatal("octo did not stop within 5s of the second SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit code %d, want 1\n%s", code, p.Log())
	}
	if !strings.Contains(p.Log(), "second signal: stopping at once") {
		t.Fatalf("the log does not say the second signal stopped it at once:\n%s", p.Log())
	}
	if err := <-slow; err == nil {
		t.Fatal("the slow request was answered; it should have been cut off")
	}
}

func writeSlowFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestASecondSignalDuringTheGracePeriodStopsAtOnce(t *testing.T) {
	t.Run("octo run", func(t *testing.T) {
		dir := t.TempDir()
		writeSlowFile(t, dir+"/slow.yaml", `
env: [ { name: HTTP_PORT } ]
connectors: [ { name: api, type: http, settings: { port: "${HTTP_PORT}" } } ]
flows:
  - name: slow
    source: { connector: api, settings: { path: /slow } }
    process:
      - { type: log, settings: { message: "slow request started" } }
      - { type: delay, settings: { duration: 30s } }
`)
		port := strconv.Itoa(freePort(t))
		p := startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir, "--shutdown-timeout", "30s")
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+"/slow", nil)
		secondSignalStopsAtOnce(t, p, req, "slow request started")
	})
	t.Run("octo serve", func(t *testing.T) {
		dir := t.TempDir()
		port := strconv.Itoa(freePort(t))
		if err := os.Mkdir(dir+"/servers", 0o755); err != nil {
			t.Fatal(err)
		}
		writeSlowFile(t, dir+"/servers/slow.yaml", `
name: Slow
kind: mcp
port: `+port+`
mcp:
  tools:
    - { name: slow, description: Takes a while., result: Done., delayMs: 30000 }
`)
		p := startOcto(t, nil, "serve", dir)
		url := "http://127.0.0.1:" + port + "/mcp"
		a := do(t, "POST", url, "application/json", initialize, "Accept", "application/json, text/event-stream")
		session := a.header.Get("Mcp-Session-Id")
		if a.status != 200 || session == "" {
			t.Fatalf("initialize got %d %s", a.status, a.body)
		}
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
		req, _ := http.NewRequest("POST", url, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		secondSignalStopsAtOnce(t, p, req, "in  tools/call slow")
	})
}

// One client sends 100 tools/call requests at once, each with a 4 MiB string argument that
// the tool echoes back (its text and its structuredContent). They used to take octo run past
// 2 GB to the OOM killer. Now the process admits them by bytes: what does not fit is answered
// 503 with Retry-After, the client retries as told, every call is answered in the end, and
// the process's peak resident memory stays bounded.
func TestHundredConcurrentHugeArgumentsAreAdmittedByBytes(t *testing.T) {
	base, p := runSample(t, "mcp-router")
	city := strings.Repeat("a", 4<<20-200)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"` + city + `"}}}`
	client := &http.Client{Timeout: 60 * time.Second}
	var mu sync.Mutex
	refused, answered := 0, 0
	var wg sync.WaitGroup
	deadline := time.Now().Add(90 * time.Second)
	for range 100 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("a call failed: %v", err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch {
				case resp.StatusCode == 200 && n > 2*int64(len(city)):
					answered++
				case resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "1":
					refused++
				default:
					t.Errorf("a call got %d (%d bytes)", resp.StatusCode, n)
				}
				mu.Unlock()
				if resp.StatusCode == 200 {
					return
				}
				time.Sleep(time.Second)
			}
			t.Error("a call was not admitted within 90 s")
		})
	}
	wg.Wait()
	if answered != 100 {
		t.Fatalf("%d of 100 calls answered (%d refusals)", answered, refused)
	}
	t.Logf("100 calls of 4 MiB answered, after %d refusals with Retry-After", refused)
	assertPeakRSSUnder(t, p, 600)
}

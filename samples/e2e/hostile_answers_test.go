package e2e

// The last loose ends of issue 8: numbers no consumer should spend more than
// linear work on, a dropped event stream's writer, plain JSON answers at the
// shutdown deadline.

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileNumbers are numbers a client can write to make a server work: a
// million-digit integer (beyond float64; exact arithmetic on it took seconds
// of schema validation), 1e400 (beyond float64), a million-digit decimal
// that float64 can hold, and 1e-999999, short but a million digits of
// exact arithmetic away from its float64 value, 0.
var hostileNumbers = []struct {
	name, number string
	problem      string // what the argument's refusal says; empty: accepted as 0
}{
	{"a million-digit integer", strings.Repeat("9", 1_000_000),
		"number " + strings.Repeat("9", 32) + "… is longer than 1000 characters"},
	{"1e400", "1e400", "number 1e400 is out of range"},
	{"a million-digit decimal", "0." + strings.Repeat("0", 999_998) + "1",
		"number 0." + strings.Repeat("0", 30) + "… is longer than 1000 characters"},
	{"1e-999999", "1e-999999", ""},
}

// TestHostileNumbersAreRefusedAtDecode sends each hostile number as a tool
// argument to a router and to a mock: each is refused when the arguments are
// decoded, with a failed call naming its first characters, or (1e-999999)
// taken as the float64 it is, 0.
func TestHostileNumbersAreRefusedAtDecode(t *testing.T) {
	base, _ := runConfig(t, numbersConfig)
	mockURL, _ := serveMockSettings(t, `  tools:
    - name: echo
      inputSchema: '{"type":"object","properties":{"n":{"type":"number","minimum":-1,"maximum":1e300}}}'
      result: '{"n":{{args.n}}}'
`)
	sid := mcpInit(t, mockURL, "2025-06-18")
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`
	}
	failed := func(text string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.ReplaceAll(text, `"`, `\"`) + `"}],"isError":true}}`
	}
	for _, n := range hostileNumbers {
		t.Run("the router refuses "+n.name, func(t *testing.T) {
			want := failed(`invalid arguments for tool "echo": ` + n.problem)
			if n.problem == "" {
				want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":0}"}],"structuredContent":{"n":0}}}`
			}
			a := do(t, "POST", base+"/mcp", "application/json", call(`{"n":`+n.number+`}`))
			if a.status != 200 || a.body != want {
				t.Fatalf("got %d\n%.400s\nwant\n%s", a.status, a.body, want)
			}
		})
		t.Run("the mock refuses "+n.name, func(t *testing.T) {
			want := failed("Invalid arguments for tool echo: " + n.problem)
			if n.problem == "" {
				want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":0}"}]}}`
			}
			a := mcpPost(t, mockURL, sid, "2025-06-18", call(`{"n":`+n.number+`}`), "Accept", "application/json")
			if a.status != 200 || a.body != want {
				t.Fatalf("got %d\n%.400s\nwant\n%s", a.status, a.body, want)
			}
		})
	}
	t.Run("a plain HTTP body with a million-digit decimal is a 400 naming it", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":`+hostileNumbers[2].number+`}`)
		want := `{"error":"invalid JSON body: ` + hostileNumbers[2].problem + `"}`
		if a.status != 400 || a.body != want {
			t.Fatalf("got %d %.400s, want 400 %s", a.status, a.body, want)
		}
	})
}

// openUnreadSSESession opens a legacy SSE stream over raw TCP from the
// loopback address src, reads its endpoint event and nothing more, and
// initializes the session; it returns the connection and the endpoint.
func openUnreadSSESession(t *testing.T, src, base string) (net.Conn, string) {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	conn := dialFrom(t, src, addr)
	if _, err := io.WriteString(conn, "GET /sse HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	var endpoint string
	for sc := bufio.NewScanner(conn); endpoint == "" && sc.Scan(); {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			endpoint = data
		}
	}
	if !strings.HasPrefix(endpoint, "/messages?sessionId=") {
		t.Fatalf("no endpoint event; got %q", endpoint)
	}
	// From here on nothing reads the stream.
	if a := do(t, "POST", base+endpoint, "application/json", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`); a.status != 202 {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	return conn, endpoint
}

// stalledSSEConfig serves a mock's legacy SSE pair on a connector that gives
// a client 1 s to accept each write and one event stream per address.
const stalledSSEConfig = `
env:
  - { name: HTTP_PORT }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", writeTimeout: 1s, maxStreamsPerClient: 1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { paths: [/sse, /messages] } }
    process:
      - type: mcp-mock
        settings:
          stallTimeout: 1s
          tools: [ { name: echo, result: "{{args.s}}" } ]
`

// TestADroppedSSEClientLosesItsConnectionAndItsSlot opens a legacy SSE
// stream from 127.0.0.3 over raw TCP, reads its endpoint event and nothing
// more, and fills it with 512 KiB answers until octo holds the POSTs back.
// The stream's writer, blocked on a client that does not read, gives up
// after writeTimeout: the connection is closed and the address's one stream
// slot is free again, so a new stream from 127.0.0.3 opens.
func TestADroppedSSEClientLosesItsConnectionAndItsSlot(t *testing.T) {
	base, _ := runConfig(t, stalledSSEConfig)
	addr := strings.TrimPrefix(base, "http://")
	conn, endpoint := openUnreadSSESession(t, "127.0.0.3", base)
	if status, _, body := openSSE(t, "127.0.0.3", addr); status != 503 {
		t.Fatalf("a second stream from 127.0.0.3 while the first is open: %d %s", status, body)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + strings.Repeat("a", 512<<10) + `"}}}`
	client := &http.Client{Timeout: 15 * time.Second}
	for i := 0; i < 100; i++ { // until octo stops taking this session's POSTs
		resp, err := client.Post(base+endpoint, "application/json", strings.NewReader(call))
		if err != nil {
			t.Fatalf("POST %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 202 {
			break
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _, _ := openSSE(t, "127.0.0.3", addr)
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10s on, a new stream from 127.0.0.3 still gets %d: the stalled one holds its slot", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// What octo had buffered still arrives, then the end of the connection.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the stalled connection was not closed: %v", err)
	}
}

// shutdownConfig serves, on one connector, a router whose tool waits a
// minute, a mock whose tool waits ten, and a plain flow that waits a minute;
// each logs when it has started.
const shutdownConfig = `
env:
  - { name: HTTP_PORT }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: router
    source: { connector: api, settings: { path: /router } }
    process:
      - type: mcp-router
        tools:
          - name: slow
            process:
              - { type: log, settings: { message: "slow tool {{ body.n }} running" } }
              - { type: delay, settings: { duration: 1m } }
  - name: mock
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        settings:
          tools: [ { name: forever, result: never, delayMs: 600000 } ]
  - name: wait
    source: { connector: api, settings: { path: /wait } }
    process:
      - { type: log, settings: { message: "waiting a minute" } }
      - { type: delay, settings: { duration: 1m } }
`

// TestSIGTERMAnswersPlainJSONCallsInFlight stops octo (SIGTERM, a 2 s grace
// period) while a router batch, a mock call and a plain request, each
// answered as plain JSON, are still running: at three quarters of the grace
// period their flows are cancelled and each gets an answer, every MCP
// request id a -32603 "the server is shutting down", and octo exits 0.
func TestSIGTERMAnswersPlainJSONCallsInFlight(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(shutdownConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir, "--shutdown-timeout", "2s")
	base := "http://127.0.0.1:" + port
	sid := mcpInit(t, base+"/mcp", "2025-06-18")
	type call struct {
		name, url, body string
		headers         []string
		started         string // the log line saying it runs
		status          int
		want            string
	}
	calls := []call{
		{"a router batch", base + "/router",
			`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"n":1}}},` +
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"n":2}}}]`,
			nil, "slow tool 1 running", 200,
			`[{"jsonrpc":"2.0","id":1,` + shuttingDown + `},{"jsonrpc":"2.0","id":2,` + shuttingDown + `}]`},
		{"a mock call", base + "/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forever"}}`,
			[]string{"Accept", "application/json", "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"},
			"tools/call forever", 200, `{"jsonrpc":"2.0","id":7,` + shuttingDown + `}`},
		{"a plain request", base + "/wait", `{}`, nil, "waiting a minute", 503,
			`{"error":"the server is shutting down"}`},
	}
	got := make([]chan answer, len(calls))
	for i, c := range calls {
		got[i] = make(chan answer, 1)
		go func() {
			req, _ := http.NewRequest("POST", c.url, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			for j := 0; j+1 < len(c.headers); j += 2 {
				req.Header.Set(c.headers[j], c.headers[j+1])
			}
			a := answer{}
			if resp, err := http.DefaultClient.Do(req); err != nil {
				a.body = err.Error()
			} else {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				a = answer{resp.StatusCode, resp.Header, string(b)}
			}
			got[i] <- a
		}()
		waitLog(t, p, c.started)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		if a := <-got[i]; a.status != c.status || a.body != c.want {
			t.Errorf("%s got %d %s\nwant %d %s", c.name, a.status, a.body, c.status, c.want)
		}
	}
	exitsZero(t, p)
}

// exitsZero waits for octo, signalled to stop, to exit, and checks it
// exited 0.
func exitsZero(t *testing.T, p *proc) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatal("octo did not exit after SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
}

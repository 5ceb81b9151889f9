package e2e

// The stdio part of the hostile-client suite: `octo serve --stdio` (and a
// flow with a stdio source) run as a child process, driven through its pipes
// the way an AI app drives it, plus the SIGTERM drain of streamed calls over
// Streamable HTTP.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// hostileTools answer at once, after slowMs, with bigBytes of text, never
// (within a test), or with the text they were sent.
func hostileTools(slowMs, bigBytes int) string {
	return fmt.Sprintf(`tools:
  - { name: fast, result: fast done }
  - { name: slow, result: slow done, delayMs: %d }
  - { name: big, result: %s }
  - { name: forever, result: never, delayMs: 600000 }
  - name: echo
    inputSchema: '{"type": "object", "properties": {"s": {"type": "string"}}}'
    result: '{{args.s}}'
`, slowMs, strings.Repeat("b", max(bigBytes, 1)))
}

// indent puts prefix before every line of text.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix) + "\n"
}

// hostileWorkspace writes a workspace whose one server, Hostile, has the
// hostile tools and listens on port.
func hostileWorkspace(t testing.TB, port, slowMs, bigBytes int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("name: Hostile\nkind: mcp\nport: %d\nmcp:\n", port) + indent(hostileTools(slowMs, bigBytes), "  ")
	if err := os.WriteFile(filepath.Join(dir, "servers", "Hostile.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostileFlow writes a flow config serving the hostile tools with mcp-mock
// behind a stdio connector with the given settings.
func hostileFlow(t testing.TB, connectorSettings string, slowMs, bigBytes int) string {
	t.Helper()
	dir := t.TempDir()
	text := "connectors:\n  - { name: io, type: stdio, settings: {" + connectorSettings + "} }\n" +
		"flows:\n  - name: mcp\n    source: { connector: io }\n    process:\n      - type: mcp-mock\n        settings:\n" +
		indent(hostileTools(slowMs, bigBytes), "          ")
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stdioProc is octo started the way an AI app starts a stdio server: the
// test holds its stdin and stdout.
type stdioProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *runtimetest.Buffer
}

// startStdioOcto starts octo with args and pipes on stdin and stdout; the
// process is killed when the test ends.
func startStdioOcto(t testing.TB, args ...string) *stdioProc {
	t.Helper()
	p := &stdioProc{cmd: exec.Command(octoBin, args...), stderr: new(runtimetest.Buffer)}
	p.cmd.Dir = repoRoot()
	p.cmd.Stderr = p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.out, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.in.Close()
		_ = p.cmd.Wait() // reaps it; an error says readAll already did
		if t.Failed() {
			t.Logf("octo stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// readAll reads every line octo writes until stdout ends, then waits for
// the exit and returns the lines and the exit code.
func (p *stdioProc) readAll(t testing.TB, within time.Duration) (lines []string, code int) {
	t.Helper()
	got := make(chan []string, 1)
	go func() {
		var ls []string
		r := bufio.NewReaderSize(p.out, 64<<10)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				ls = append(ls, strings.TrimSuffix(l, "\n"))
			}
			if err != nil {
				got <- ls
				return
			}
		}
	}()
	select {
	case lines = <-got:
	case <-time.After(within):
		t.Fatalf("stdout still open after %s", within)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(within):
		t.Fatalf("octo did not exit within %s after closing stdout", within)
	}
	return lines, p.cmd.ProcessState.ExitCode()
}

const initializeLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

// answersByID counts the answers to each request id in lines and fails on a
// line that is not a JSON-RPC message.
func answersByID(t testing.TB, lines []string) map[string][]string {
	t.Helper()
	by := map[string][]string{}
	for _, l := range lines {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %.200s", l)
		}
		if m.Method == "" {
			by[string(m.ID)] = append(by[string(m.ID)], l)
		}
	}
	return by
}

// TestStdioAnswersEveryRequestReadBeforeInputEnds pipes requests, slow ones
// among them, and closes stdin at once: every request gets exactly one
// answer and octo exits 0, in every run, whether it serves a workspace
// (octo serve --stdio) or a flow with a stdio source (octo run).
func TestStdioAnswersEveryRequestReadBeforeInputEnds(t *testing.T) {
	ws := hostileWorkspace(t, freePort(t), 200, 0)
	flow := hostileFlow(t, "", 200, 0)
	tests := []struct {
		name string
		runs int
		args []string
	}{
		{"octo serve --stdio", 30, []string{"serve", ws, "Hostile", "--stdio"}},
		{"octo run with a stdio source", 6, []string{"run", "--config", flow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wg sync.WaitGroup
			sem := make(chan struct{}, 3)
			for run := range tt.runs {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					t.Run(fmt.Sprintf("run %d", run), func(t *testing.T) { endOfInputRun(t, tt.args, 24) })
				}()
			}
			wg.Wait()
		})
	}
}

func endOfInputRun(t *testing.T, args []string, calls int) {
	p := startStdioOcto(t, args...)
	var b strings.Builder
	b.WriteString(initializeLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	want := []string{`"init"`}
	for i := range calls {
		tool := []string{"fast", "slow", "ping"}[i%3]
		if tool == "ping" {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		} else {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`+"\n", i, tool)
		}
		want = append(want, fmt.Sprint(i))
	}
	if _, err := io.WriteString(p.in, b.String()); err != nil {
		t.Fatal(err)
	}
	_ = p.in.Close()
	lines, code := p.readAll(t, 15*time.Second)
	by := answersByID(t, lines)
	for _, id := range want {
		if n := len(by[id]); n != 1 {
			t.Errorf("request %s got %d answers, want 1", id, n)
		}
	}
	if len(by) != len(want) {
		t.Errorf("%d ids answered, want %d:\n%s", len(by), len(want), strings.Join(lines, "\n"))
	}
	for _, a := range by[`1`] {
		if !strings.Contains(a, `"slow done"`) {
			t.Errorf("the slow call was not finished: %s", a)
		}
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// TestStdioEndOfInputIsBoundedByTheShutdownTimeout closes stdin while a
// call would run for minutes: it is answered with an error once the
// shutdown timeout is mostly spent, and octo exits 0.
func TestStdioEndOfInputIsBoundedByTheShutdownTimeout(t *testing.T) {
	p := startStdioOcto(t, "serve", hostileWorkspace(t, freePort(t), 10, 0), "Hostile", "--stdio", "--shutdown-timeout", "2s")
	if _, err := io.WriteString(p.in, initializeLine+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever"}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	_ = p.in.Close()
	lines, code := p.readAll(t, 15*time.Second)
	by := answersByID(t, lines)
	if len(by) != 3 || len(by["2"]) != 1 || !strings.Contains(by["2"][0], "slow done") ||
		len(by["1"]) != 1 || by["1"][0] != `{"jsonrpc":"2.0","id":1,`+shuttingDown+`}` {
		t.Errorf("answers:\n%s", strings.Join(lines, "\n"))
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// writeBigLine writes a JSON-RPC line whose params hold a string of n bytes
// (of 'a'), a megabyte at a time, so the test never holds the line whole.
func writeBigLine(w io.Writer, head string, n int, tail string) error {
	chunk := []byte(strings.Repeat("a", 1<<20))
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	for left := n; left > 0; left -= len(chunk) {
		if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, tail+"\n")
	return err
}

// stdioLines reads octo's stdout line by line.
type stdioLines struct {
	t testing.TB
	r *bufio.Reader
}

func (p *stdioProc) lines(t testing.TB) *stdioLines {
	return &stdioLines{t, bufio.NewReaderSize(p.out, 1<<20)}
}

// next returns the next line without its newline.
func (s *stdioLines) next() string {
	s.t.Helper()
	l, err := s.r.ReadString('\n')
	if err != nil {
		s.t.Fatalf("reading stdout: %v (got %.200q)", err, l)
	}
	return strings.TrimSuffix(l, "\n")
}

// TestStdioAnOverlongLineIsAParseErrorAndTheNextLineIsServed sends a line
// over the 64 MB limit, then a ping: the first gets -32700 naming the
// limit, the ping its pong.
func TestStdioAnOverlongLineIsAParseErrorAndTheNextLineIsServed(t *testing.T) {
	ws := hostileWorkspace(t, freePort(t), 10, 0)
	p := startStdioOcto(t, "serve", ws, "Hostile", "--stdio")
	out := p.lines(t)
	go func() {
		_, _ = io.WriteString(p.in, initializeLine+"\n")
		_ = writeBigLine(p.in, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, 65<<20, `"}}`)
		_, _ = io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	if l := out.next(); !strings.Contains(l, `"id":"init","result"`) {
		t.Fatalf("initialize: %.300s", l)
	}
	if l, want := out.next(), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is longer than the limit of 67108864 bytes"}}`; l != want {
		t.Fatalf("over-long line:\ngot  %.300s\nwant %s", l, want)
	}
	if l := out.next(); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("the ping after it: %.300s", l)
	}
}

// TestStdioA60MBLineNeedsFewCopies sends 60 MB requests: a ping whose
// params are big, and a tool call that echoes a 60 MB argument. Both are
// answered and octo's peak memory stays a small multiple of the line.
func TestStdioA60MBLineNeedsFewCopies(t *testing.T) {
	ws := hostileWorkspace(t, freePort(t), 10, 0)
	tests := []struct {
		name, head, tail string
		wantPrefix       string
		limitMB          int
	}{
		{"a ping with 60 MB of params", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"`, `"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{}}`, 250},
		{"a tool call echoing a 60 MB argument", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"s":"`, `"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"aaaa`, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startStdioOcto(t, "serve", ws, "Hostile", "--stdio")
			out := p.lines(t)
			go func() {
				_, _ = io.WriteString(p.in, initializeLine+"\n")
				_ = writeBigLine(p.in, tt.head, 60<<20, tt.tail)
			}()
			out.next()
			l := out.next()
			if !strings.HasPrefix(l, tt.wantPrefix) {
				t.Fatalf("got %.300s", l)
			}
			assertPeakRSSUnder(t, &proc{cmd: p.cmd}, tt.limitMB)
		})
	}
}

const shuttingDown = `"error":{"code":-32603,"message":"Internal error: the server is shutting down"}`

// TestSIGTERMAnswersStdioCallsInFlight sends a call that ends within the
// grace period and one that would not, then SIGTERM: the first gets its
// result, the second an error, and octo exits 0.
func TestSIGTERMAnswersStdioCallsInFlight(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"octo serve --stdio", []string{"serve", hostileWorkspace(t, freePort(t), 1000, 0), "Hostile", "--stdio", "--shutdown-timeout", "4s"}},
		{"octo run with a stdio source", []string{"run", "--config", hostileFlow(t, "", 1000, 0), "--shutdown-timeout", "4s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startStdioOcto(t, tt.args...)
			out := p.lines(t)
			if _, err := io.WriteString(p.in, initializeLine+"\n"+
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forever"}}`+"\n"+
				`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n"); err != nil {
				t.Fatal(err)
			}
			out.next()
			if l := out.next(); l != `{"jsonrpc":"2.0","id":3,"result":{}}` {
				t.Fatalf("ping: %s", l)
			}
			// The ping was read after the calls, so both are in flight.
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			lines, code := p.readAll(t, 15*time.Second)
			want := []string{
				`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow done"}]}}`,
				`{"jsonrpc":"2.0","id":2,` + shuttingDown + `}`,
			}
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("after SIGTERM octo wrote:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
			if code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
		})
	}
}

// TestSIGTERMAnswersStreamedHTTPCallsInFlight does the same over
// Streamable HTTP, each call a POST answered as an event stream.
func TestSIGTERMAnswersStreamedHTTPCallsInFlight(t *testing.T) {
	port := freePort(t)
	ws := hostileWorkspace(t, port, 1000, 0)
	p := startOcto(t, nil, "serve", ws, "--shutdown-timeout", "4s")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	init := do(t, "POST", url, "application/json", initializeLine, "Accept", "application/json, text/event-stream")
	sid := init.header.Get("Mcp-Session-Id")
	if init.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", init.status, init.body)
	}
	streams := map[string]*http.Response{}
	for _, tool := range []string{"slow", "forever"} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(
			`{"jsonrpc":"2.0","id":"`+tool+`","method":"tools/call","params":{"name":"`+tool+`"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%s: %d %s", tool, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		streams[tool] = resp
	}
	// Both streams are open, so both calls are in flight.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"slow":    `data: {"jsonrpc":"2.0","id":"slow","result":{"content":[{"type":"text","text":"slow done"}]}}`,
		"forever": `data: {"jsonrpc":"2.0","id":"forever",` + shuttingDown + `}`,
	}
	for tool, resp := range streams {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Errorf("%s: reading the stream: %v", tool, err)
		}
		if !strings.Contains(string(body), want[tool]+"\n") {
			t.Errorf("%s: the stream ended with:\n%s\nwant an event %s", tool, body, want[tool])
		}
	}
	exitsZero(t, p)
}

// TestStdioAClientThatDoesNotReadIsNotReadEither writes thousands of calls
// whose answers are big and reads nothing: octo stops reading its input
// once its outbox is full, so its memory stays bounded (the answers would
// take 500 MB), and when the client reads again every answer comes.
func TestStdioAClientThatDoesNotReadIsNotReadEither(t *testing.T) {
	const calls, answerBytes = 4000, 128 << 10
	ws := hostileWorkspace(t, freePort(t), 10, answerBytes)
	p := startStdioOcto(t, "serve", ws, "Hostile", "--stdio")
	c := &nonReader{done: make(chan struct{})}
	go c.write(p.in, calls)
	c.waitUntilStuckOrDone(t, p, calls)
	assertPeakRSSUnder(t, &proc{cmd: p.cmd}, 200)
	out := p.lines(t)
	if l := out.next(); !strings.Contains(l, `"id":"init"`) {
		t.Fatalf("first line: %.200s", l)
	}
	seen := make([]bool, calls)
	want := `"result":{"content":[{"type":"text","text":"` + strings.Repeat("b", answerBytes) + `"}]}}`
	for range calls {
		l := out.next()
		var id int
		if _, err := fmt.Sscanf(l, `{"jsonrpc":"2.0","id":%d,`, &id); err != nil || id < 0 || id >= calls || seen[id] || !strings.HasSuffix(l, want) {
			t.Fatalf("unexpected answer (%v): %.200s", err, l)
		}
		seen[id] = true
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the client is still blocked after reading every answer")
	}
	if n := c.sent.Load(); n != calls {
		t.Fatalf("wrote %d calls, want %d", n, calls)
	}
	assertPeakRSSUnder(t, &proc{cmd: p.cmd}, 200)
}

// nonReader writes calls for the big tool and never reads.
type nonReader struct {
	sent atomic.Int64
	done chan struct{} // closed when every call is written, or writing failed
}

func (c *nonReader) write(w io.Writer, calls int) {
	defer close(c.done)
	bw := bufio.NewWriterSize(w, 4<<10)
	_, _ = bw.WriteString(initializeLine + "\n")
	for i := range calls {
		if _, err := fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big"}}`+"\n", i); err != nil {
			return
		}
		c.sent.Add(1)
	}
	_ = bw.Flush()
}

// waitUntilStuckOrDone returns once the client's writes have not moved for
// a second (octo stopped reading), or all were written and octo answered
// them all (it read everything: the memory check then sees the worst).
func (c *nonReader) waitUntilStuckOrDone(t *testing.T, p *stdioProc, calls int) {
	t.Helper()
	last, still := int64(-1), 0
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		select {
		case <-c.done:
			for time.Now().Before(deadline) && strings.Count(p.stderr.String(), "out result of tools/call big") < calls {
				time.Sleep(100 * time.Millisecond)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if n := c.sent.Load(); n != last {
			last, still = n, 0
		} else if still++; still >= 10 {
			t.Logf("the client is blocked after %d of %d calls", n, calls)
			return
		}
	}
	t.Fatal("neither blocked nor done after 15s")
}

// TestStdioAClientThatStopsReadingIsLetGo runs a flow with a stdio source and
// a short stallTimeout, and a client that floods it and reads nothing: once
// a line has waited for the client that long, octo logs why and exits.
func TestStdioAClientThatStopsReadingIsLetGo(t *testing.T) {
	p := startStdioOcto(t, "run", "--config", hostileFlow(t, "stallTimeout: 1s", 10, 128<<10))
	c := &nonReader{done: make(chan struct{})}
	go c.write(p.in, 4000)
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("octo still runs 15s after its client stopped reading")
	}
	if log := p.stderr.String(); !strings.Contains(log, "standard output stalled: the client has read nothing for 1s; ending the session") {
		t.Fatalf("no reason logged:\n%s", log)
	}
}

// TestStdioACancelledCallWritesNothing cancels a call in flight: no answer
// follows, not even an empty line, which a client would fail to parse.
func TestStdioACancelledCallWritesNothing(t *testing.T) {
	p := startStdioOcto(t, "serve", hostileWorkspace(t, freePort(t), 10, 0), "Hostile", "--stdio")
	out := p.lines(t)
	send := func(lines ...string) {
		t.Helper()
		if _, err := io.WriteString(p.in, strings.Join(lines, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(initializeLine, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever"}}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	out.next()
	if l := out.next(); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if l := out.next(); l != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("after the cancel: %q", l)
	}
	_ = p.in.Close()
	if lines, code := p.readAll(t, 15*time.Second); len(lines) != 0 || code != 0 {
		t.Fatalf("after the end of input: %q, exit code %d", lines, code)
	}
}

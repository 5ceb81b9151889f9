package e2e

// The hostile-client suite for the MCP core over HTTP (issue 8): batches
// and answer budgets, per-session outbound queues, calls whose client has
// gone, stream and session caps, ids and log lines a client forges, and
// the traffic log of refused requests. Every test plays against the built
// binary over loopback, with bounded counts.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// serveMockSettings writes a workspace with one saved server whose `mcp:`
// section is mcpYAML (indented by the caller as under `mcp:`), serves it
// with `octo serve` and extra flags, and returns its MCP address.
func serveMockSettings(t *testing.T, mcpYAML string, flags ...string) (string, *proc) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	file := "name: Hostile\nkind: mcp\nport: " + strconv.Itoa(port) + "\nmcp:\n" + mcpYAML
	if err := os.WriteFile(filepath.Join(dir, "servers", "Hostile.yaml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOcto(t, nil, append([]string{"serve", dir}, flags...)...)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	if !strings.Contains(p.Log(), url) {
		t.Fatalf("the log does not show %s:\n%s", url, p.Log())
	}
	return url, p
}

// mcpInit opens a Streamable HTTP session at version and returns its id.
func mcpInit(t *testing.T, url, version string) string {
	t.Helper()
	a := do(t, "POST", url, "application/json",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`,
		"Accept", "application/json, text/event-stream")
	id := a.header.Get("Mcp-Session-Id")
	if a.status != 200 || id == "" {
		t.Fatalf("initialize: %d %q %s", a.status, id, a.body)
	}
	return id
}

// mcpPost posts body on session sid.
func mcpPost(t *testing.T, url, sid, version, body string, headers ...string) answer {
	t.Helper()
	h := append([]string{"Accept", "application/json, text/event-stream", "Mcp-Session-Id", sid,
		"Mcp-Protocol-Version", version}, headers...)
	return do(t, "POST", url, "application/json", body, h...)
}

// TestARequestIDWithInvalidUTF8IsRefusedWithValidJSON sends a string id
// holding a byte that is not UTF-8: echoing it would make the answer
// invalid JSON, so both servers refuse the request (-32600) without an id.
func TestARequestIDWithInvalidUTF8IsRefusedWithValidJSON(t *testing.T) {
	const (
		body = "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}"
		want = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id is not valid UTF-8 (JSON text must be UTF-8)"}}`
	)
	t.Run("the router", func(t *testing.T) {
		base, _ := runSample(t, "mcp-router")
		a := do(t, "POST", base+"/mcp", "application/json", body)
		if a.status != http.StatusBadRequest || a.body != want {
			t.Fatalf("got %d %q\nwant 400 %s", a.status, a.body, want)
		}
	})
	t.Run("the mock", func(t *testing.T) {
		url, _ := serveWeatherMock(t)
		sid := mcpInit(t, url, "2025-06-18")
		a := mcpPost(t, url, sid, "2025-06-18", body)
		if a.status != http.StatusBadRequest || a.body != want {
			t.Fatalf("got %d %q\nwant 400 %s", a.status, a.body, want)
		}
		if a := mcpPost(t, url, sid, "2025-06-18", `{"jsonrpc":"2.0","id":"ok","method":"ping"}`); a.body != `{"jsonrpc":"2.0","id":"ok","result":{}}` {
			t.Fatalf("the session stopped answering: %d %s", a.status, a.body)
		}
	})
}

// TestTheTrafficLogEscapesWhatAClientWrites sends a method, a tool name and
// a body built to forge log lines and colour the operator's terminal: the
// readable traffic log (with message bodies, at debug) shows them escaped,
// one line per event.
func TestTheTrafficLogEscapesWhatAClientWrites(t *testing.T) {
	url, p := serveWeatherMock(t, "--log-level", "debug")
	sid := mcpInit(t, url, "2025-06-18")
	mcpPost(t, url, sid, "2025-06-18", `{"jsonrpc":"2.0","method":"evil\n12:00:00.000 Weather mock  in  forged\u001b[31mred"}`)
	mcpPost(t, url, sid, "2025-06-18", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\n\"params\":{\"name\":\"get\\n\\u001b[2Jweather\",\"arguments\":{\"city\":\"\xff\"}}}")
	waitLog(t, p, `error of tools/call get\n\x1b[2Jweather`)
	log := p.Log()
	for _, want := range []string{`in  evil\n12:00:00.000 Weather mock  in  forged\x1b[31mred`, `in  tools/call get\n\x1b[2Jweather`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if strings.Contains(log, "\x1b") || regexp.MustCompile(`(?m)^12:00:00\.000|^"params"`).MatchString(log) || !utf8.ValidString(log) {
		t.Errorf("the log holds a raw escape, a forged line or invalid UTF-8:\n%q", log)
	}
}

// trafficLines returns the JSON traffic log lines (octo serve --json) of kind.
func trafficLines(t *testing.T, p *proc, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(p.Log(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["kind"] == kind {
			out = append(out, m)
		}
	}
	return out
}

// TestTheTrafficLogShowsRequestsRefusedBeforeAnyMessageIsServed sends what
// is refused at the HTTP level, each on both HTTP transports where it
// applies: every refusal is a traffic entry (in, "rejected") with its HTTP
// status, JSON-RPC code and reason.
func TestTheTrafficLogShowsRequestsRefusedBeforeAnyMessageIsServed(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	p := startOcto(t, nil, "serve", "samples/weather-mock", "--port", port, "--json")
	url := "http://127.0.0.1:" + port + "/mcp"
	base := strings.TrimSuffix(url, "/mcp")
	sid := mcpInit(t, url, "2025-06-18")
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	type refusal struct {
		transport string
		status    int
		code      int
		reason    string
	}
	cases := []struct {
		name string
		send func() answer
		want refusal
	}{
		{"a POST without a session id", func() answer { return do(t, "POST", url, "application/json", ping) },
			refusal{"streamable-http", 400, -32600, "missing Mcp-Session-Id header"}},
		{"a POST for an unknown session", func() answer { return mcpPost(t, url, "nope", "2025-06-18", ping) },
			refusal{"streamable-http", 404, -32001, "Session not found"}},
		{"a body that is not JSON", func() answer { return mcpPost(t, url, sid, "2025-06-18", `{bad`) },
			refusal{"streamable-http", 400, -32700, "Parse error"}},
		{"an unsupported MCP-Protocol-Version", func() answer { return mcpPost(t, url, sid, "2030-01-01", ping) },
			refusal{"streamable-http", 400, -32600, `unsupported Mcp-Protocol-Version "2030-01-01"`}},
		{"a batch on a 2025-06-18 session", func() answer { return mcpPost(t, url, sid, "2025-06-18", "["+ping+"]") },
			refusal{"streamable-http", 400, -32600, "batches are not supported in protocol version 2025-06-18"}},
		{"a legacy POST without sessionId", func() answer { return do(t, "POST", base+"/messages", "application/json", ping) },
			refusal{"sse", 400, -32600, "missing sessionId query parameter"}},
		{"a legacy POST for an unknown session", func() answer { return do(t, "POST", base+"/messages?sessionId=nope", "application/json", ping) },
			refusal{"sse", 404, -32001, "Session not found"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.send()
			if a.status != tc.want.status {
				t.Fatalf("got %d %s; want %d", a.status, a.body, tc.want.status)
			}
			waitFor(t, "the rejection in the traffic log", func() bool { return len(trafficLines(t, p, "rejected")) > i })
			got := trafficLines(t, p, "rejected")[i]
			if got["direction"] != "in" || got["transport"] != tc.want.transport || got["status"] != float64(tc.want.status) ||
				got["code"] != float64(tc.want.code) || !strings.Contains(got["msg"].(string), tc.want.reason) {
				t.Fatalf("traffic entry %v\nwant %+v", got, tc.want)
			}
		})
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// bigAnswers builds a batch of n tools/call requests to tool "big" with a
// string argument of size bytes, and counts the results and budget errors
// in an answer.
func bigBatch(n, size int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"big","arguments":{"s":"` + strings.Repeat("a", size) + `"}}}`)
	}
	b.WriteByte(']')
	return b.String()
}

// budgetErrorRE matches the error an answer over the response budget gets.
var budgetErrorRE = regexp.MustCompile(`"error":\{"code":-32603,"message":"Internal error: the answer( \(\d+ bytes\))? does not fit in the 16777216 bytes allowed for the answers to one request \(maxResponseBytes\)"\}`)

// TestTheRouterBoundsBatchesAndWhatOneRequestExpandsTo plays a 101-message
// batch and a batch of 100 calls whose answers are each 900 kB (30 times
// their argument; expr-lang's memory budget stops more): the first is
// refused whole, the second answers until the 16 MiB budget is spent and
// gives the rest an error for their ids, and octo's memory stays bounded.
func TestTheRouterBoundsBatchesAndWhatOneRequestExpandsTo(t *testing.T) {
	dir := t.TempDir()
	port := strconv.Itoa(freePort(t))
	cfg := `service: { name: hostile-router }
connectors:
  - { name: api, type: http, settings: { port: ` + port + ` } }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: big
            process:
              - type: set-payload
                settings: { value: 'repeat(body.s, 30)' }
`
	if err := os.WriteFile(filepath.Join(dir, "router.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOcto(t, nil, "run", "--config", dir)
	url := "http://127.0.0.1:" + port + "/mcp"
	t.Run("a batch over the limit gets one error", func(t *testing.T) {
		a := do(t, "POST", url, "application/json", "["+strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 100)+`{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
		want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a batch of 101 messages is over the limit of 100 (maxBatch); send fewer messages per request"}}`
		if a.status != 400 || a.body != want {
			t.Fatalf("got %d %.300s\nwant 400 %s", a.status, a.body, want)
		}
	})
	t.Run("answers past the budget are errors for their ids", func(t *testing.T) {
		a := do(t, "POST", url, "application/json", bigBatch(100, 30_000))
		results, errs := strings.Count(a.body, `"result"`), len(budgetErrorRE.FindAllString(a.body, -1))
		if a.status != 200 || results != 18 || errs != 82 || strings.Contains(a.body, "isError") {
			t.Fatalf("got %d: %d results, %d budget errors; want 18 and 82", a.status, results, errs)
		}
	})
	// About 100 MB (the refused calls still run their branch); 250 MB
	// without the budget.
	assertPeakRSSUnder(t, p, 160)
}

// TestTheMockBoundsBatchesAndWhatOneRequestExpandsTo is the same attack on
// a mock whose tool repeats its argument 100 times, over a 2025-03-26
// session (the revision with batches), where the calls of a batch run at
// once: the budget holds while they render, not only once they are done.
func TestTheMockBoundsBatchesAndWhatOneRequestExpandsTo(t *testing.T) {
	url, p := serveMockSettings(t, `  tools:
    - name: big
      result: "`+strings.Repeat("{{args.s}}", 100)+`"
`, "--json")
	sid := mcpInit(t, url, "2025-03-26")
	t.Run("a batch over the limit gets one error and a traffic entry", func(t *testing.T) {
		a := mcpPost(t, url, sid, "2025-03-26", "["+strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 100)+`{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
		want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a batch of 101 messages is over the limit of 100 (maxBatch); send fewer messages per request"}}`
		if a.status != 400 || a.body != want {
			t.Fatalf("got %d %.300s\nwant 400 %s", a.status, a.body, want)
		}
		waitFor(t, "the rejection in the traffic log", func() bool { return len(trafficLines(t, p, "rejected")) == 1 })
	})
	t.Run("answers past the budget are errors for their ids", func(t *testing.T) {
		a := mcpPost(t, url, sid, "2025-03-26", bigBatch(40, 30_000), "Accept", "application/json")
		results, errs := strings.Count(a.body, `"result"`), len(budgetErrorRE.FindAllString(a.body, -1))
		if a.status != 200 || results != 5 || errs != 35 {
			t.Fatalf("got %d: %d results, %d budget errors; want 5 and 35", a.status, results, errs)
		}
	})
	// About 100 MB; 880 MB without the budget.
	assertPeakRSSUnder(t, p, 200)
}

// TestCallsWhoseClientHasGoneAreCancelled starts a tool that would take a
// minute and leaves: by closing the POST's connection (a JSON answer or an
// event stream) or by deleting the session. The traffic log says the call
// was cancelled, and why, long before the minute is up; no result follows.
func TestCallsWhoseClientHasGoneAreCancelled(t *testing.T) {
	url, p := serveMockSettings(t, `  tools:
    - { name: slow, description: Takes a minute., result: done, delayMs: 60000 }
`)
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`
	started := 0
	// start posts the call on a fresh session and returns once the server
	// has it; cancel closes the connection.
	start := func(t *testing.T, accept string) (sid string, cancel func()) {
		sid = mcpInit(t, url, "2025-06-18")
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(call))
		req.Header.Set("Accept", accept)
		req.Header.Set("Mcp-Session-Id", sid)
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		started++
		waitFor(t, "the call to start", func() bool { return strings.Count(p.Log(), "in  tools/call slow") == started })
		return sid, cancel
	}
	cases := []struct {
		name, accept, why string
		leave             func(sid string, cancel func())
	}{
		{"a POST waiting for its JSON answer", "application/json", "the client closed the connection",
			func(_ string, cancel func()) { cancel() }},
		{"a POST answered with an event stream", "text/event-stream", "the client closed the connection",
			func(_ string, cancel func()) { cancel() }},
		{"a session deleted while its call runs", "application/json", "the session ended: deleted",
			func(sid string, _ func()) { do(t, "DELETE", url, "", "", "Mcp-Session-Id", sid) }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sid, cancel := start(t, tc.accept)
			defer cancel()
			tc.leave(sid, cancel)
			want := "no answer to cancelled tools/call slow (" + tc.why + ")"
			waitFor(t, want, func() bool { return strings.Count(p.Log(), "no answer to cancelled tools/call slow") == i+1 })
			if !strings.Contains(p.Log(), want) || strings.Contains(p.Log(), "result of tools/call slow") {
				t.Fatalf("want %q and no result in the log:\n%s", want, p.Log())
			}
		})
	}
}

// TestALegacySSEClientThatNeverReadsIsHeldBackThenDropped opens a legacy SSE
// stream over raw TCP from 127.0.0.2, reads its endpoint event and nothing
// more, and posts calls whose answers are 512 KiB each, four at a time. Its
// POSTs are held back once its stream is full (octo stops taking its input),
// the session is dropped after the stall timeout with a log line saying why,
// and its POSTs then get 404; a well-behaved client is served throughout.
func TestALegacySSEClientThatNeverReadsIsHeldBackThenDropped(t *testing.T) {
	url, p := serveMockSettings(t, `  stallTimeout: 1s
  tools:
    - { name: echo, result: "{{args.s}}" }
    - { name: get_weather, result: sunny }
`)
	base := strings.TrimSuffix(url, "/mcp")
	_, endpoint := openUnreadSSESession(t, "127.0.0.2", base)
	good := mcpInit(t, url, "2025-06-18")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + strings.Repeat("a", 512<<10) + `"}}}`
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		wg       sync.WaitGroup
	)
	spammer := &http.Client{Timeout: 15 * time.Second}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				status := 0 // no answer in time
				if resp, err := spammer.Post(base+endpoint, "application/json", strings.NewReader(call)); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
				if status != 202 {
					return
				}
			}
		}()
	}
	if a := mcpPost(t, url, good, "2025-06-18", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather"}}`); !strings.Contains(a.body, "sunny") {
		t.Errorf("the good client during the attack: %d %s", a.status, a.body)
	}
	wg.Wait()
	waitLog(t, p, "session closed (stalled: the client did not read its event stream for 1s)")
	if a := do(t, "POST", base+endpoint, "application/json", call); a.status != 404 {
		t.Errorf("a POST after the drop: %d %.200s", a.status, a.body)
	}
	if a := mcpPost(t, url, good, "2025-06-18", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather"}}`); !strings.Contains(a.body, "sunny") {
		t.Errorf("the good client after the attack: %d %s", a.status, a.body)
	}
	t.Logf("POST statuses: %v", statuses)
	if statuses[202] == 400 {
		t.Errorf("all 400 POSTs were taken: %v", statuses)
	}
	assertPeakRSSUnder(t, p, 150)
}

// openStream opens an event stream (a GET, or a POST of body answered as
// SSE) and returns its status; the stream stays open until the test ends.
func openStream(t *testing.T, method, url, sid, body string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.StatusCode
}

// TestOneClientCannotHoldEveryStreamOrSession caps a session's event
// streams (maxStreamsPerSession: 2) and the server's sessions (maxSessions:
// 3): a third stream is 429, and a fourth session takes the place of the
// one idle the longest, with a log line saying so, instead of a 503.
func TestOneClientCannotHoldEveryStreamOrSession(t *testing.T) {
	url, p := serveMockSettings(t, `  maxSessions: 3
  maxStreamsPerSession: 2
  tools:
    - { name: slow, result: done, delayMs: 60000 }
`)
	var first string
	t.Run("a session's third stream is refused", func(t *testing.T) {
		sid := mcpInit(t, url, "2025-06-18")
		first = sid
		if status := openStream(t, "GET", url, sid, ""); status != 200 {
			t.Fatalf("GET stream: %d", status)
		}
		if status := openStream(t, "POST", url, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`); status != 200 {
			t.Fatalf("POST stream: %d", status)
		}
		a := mcpPost(t, url, sid, "2025-06-18", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Accept", "text/event-stream")
		want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Too many requests: this session already has 2 event streams open (maxStreamsPerSession); close one or accept application/json"}}`
		if a.status != 429 || a.header.Get("Retry-After") != "1" || a.body != want {
			t.Fatalf("got %d %v %s\nwant 429 %s", a.status, a.header, a.body, want)
		}
		if a := mcpPost(t, url, sid, "2025-06-18", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); a.body != `{"jsonrpc":"2.0","id":3,"result":{}}` {
			t.Fatalf("a JSON answer on the same session: %d %s", a.status, a.body)
		}
	})
	t.Run("a fourth session evicts the one idle the longest", func(t *testing.T) {
		do(t, "DELETE", url, "", "", "Mcp-Session-Id", first)
		oldest, newer := mcpInit(t, url, "2025-06-18"), mcpInit(t, url, "2025-06-18")
		mcpInit(t, url, "2025-06-18")
		mcpInit(t, url, "2025-06-18") // the fourth
		waitLog(t, p, "session closed (evicted: the server had its limit of 3 sessions and this one was idle the longest, for ")
		if a := mcpPost(t, url, oldest, "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != 404 {
			t.Fatalf("the evicted session: %d %s", a.status, a.body)
		}
		if a := mcpPost(t, url, newer, "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != 200 {
			t.Fatalf("the newer session: %d %s", a.status, a.body)
		}
	})
}

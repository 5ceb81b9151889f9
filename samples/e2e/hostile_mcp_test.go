package e2e

// The hostile-client suite for the MCP core over HTTP (issue 8): batches
// and answer budgets, per-session outbound queues, calls whose client has
// gone, stream and session caps, ids and log lines a client forges, and
// the traffic log of refused requests. Every test plays against the built
// binary over loopback, with bounded counts.

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileWorkspace writes a workspace with one saved server whose `mcp:`
// section is mcpYAML (indented by the caller as under `mcp:`), serves it
// with `octo serve` and extra flags, and returns its MCP address.
func hostileWorkspace(t *testing.T, mcpYAML string, flags ...string) (string, *proc) {
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

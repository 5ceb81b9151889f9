package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An agent that closes the bridge's input while a tool call runs still gets that call's answer:
// the bridge lets the call finish (within 10 s; this one takes 5), writes the answer, then exits
// 0, as a stdio MCP server does on the end of its input.
func TestAgentBridgeAnswersTheCallInFlightWhenItsInputEnds(t *testing.T) {
	t.Run("the app runs the call", func(t *testing.T) {
		t.Parallel()
		bridgeAnswersInFlightAtEOF(t, newAppHome(t).env)
	})
	t.Run("the bridge runs the call without the app", func(t *testing.T) {
		t.Parallel()
		env, dataDir, _ := bridgeEnv(t)
		ws := filepath.Join(t.TempDir(), "mocks")
		writeAgentSettings(t, dataDir, "workspace: "+ws+"\nagents:\n  allow: true\n  withoutApp: true\n  approve: never\n")
		bridgeAnswersInFlightAtEOF(t, env)
	})
}

func bridgeAnswersInFlightAtEOF(t *testing.T, env []string) {
	b := startBridge(t, env)
	b.send(t, agentInitialize("2025-06-18"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.recv(t)
	for i, call := range []string{ // one after the other: calls run at once
		`{"name":"save_server","arguments":{"name":"Slow mock","kind":"mcp","port":0,"mcp":{"tools":[{"name":"slow_report","result":"the report","delayMs":5000}]}}}`,
		`{"name":"start_server","arguments":{"name":"Slow mock"}}`,
	} {
		b.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+2)+`,"method":"tools/call","params":`+call+`}`)
		if res, _ := b.recv(t)["result"].(map[string]any); res == nil || res["isError"] == true {
			t.Fatalf("%s = %v\n%s", call, res, b.stderr)
		}
	}
	b.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"call_server","arguments":{"server":"Slow mock","tool":"slow_report","arguments":{}}}}`)
	time.Sleep(300 * time.Millisecond) // the call is under way in the mock
	start := time.Now()
	code, rest := b.end(t)
	if code != 0 {
		t.Errorf("exit code %d\n%s", code, b.stderr)
	}
	if !strings.Contains(rest, `"id":4`) || !strings.Contains(rest, "the report") || strings.Contains(rest, "shutting down") {
		t.Fatalf("after the input ended, octo mcp wrote %q; want call 4's answer\n%s", rest, b.stderr)
	}
	if waited := time.Since(start); waited < 4*time.Second {
		t.Errorf("exited %s after the input ended: the 5 s call cannot have finished", waited)
	}
}

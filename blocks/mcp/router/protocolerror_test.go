package router_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// crashingTools fail with a code: a protocol error, as a server that broke answers.
const crashingTools = `
        tools:
          - name: crash
            description: answers a JSON-RPC error
            task: optional
            process:
              - type: fail
                settings: { message: 'the job crashed on {{ body.city }}', code: -32603 }
          - name: recovered
            description: a coded fail caught and failed again without a code
            process:
              - type: catch
                try:
                  - type: fail
                    settings: { message: crashed, code: -32000 }
                catch:
                  - type: fail
                    settings: { message: 'recovered from {{ vars.error.message }}' }
        prompts:
          - name: broken
            description: a prompt whose branch breaks the protocol
            process:
              - type: fail
                settings: { message: no prompt today, code: -32001 }
`

// A fail block with a code answers the JSON-RPC error it names in a tool, a prompt and a task;
// caught, it is an error like any other.
func TestAFailWithACodeIsAProtocolError(t *testing.T) {
	base := serveRouter(t, crashingTools)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		cs := runtimetest.ConnectMCPAt(t, base+"/mcp", nil, version)
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "crash", Arguments: map[string]any{"city": "Oslo"}})
		if rpcErr, ok := errors.AsType[*sdkrpc.Error](err); !ok || rpcErr.Code != -32603 || rpcErr.Message != "the job crashed on Oslo" {
			t.Fatalf("%s: a tool's coded fail answered %v, want error -32603 with its message", version, err)
		}
		_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "broken"})
		if rpcErr, ok := errors.AsType[*sdkrpc.Error](err); !ok || rpcErr.Code != -32001 || rpcErr.Message != "no prompt today" {
			t.Fatalf("%s: a prompt's coded fail answered %v, want error -32001 with its message", version, err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "recovered"})
		if err != nil || jsonText(res) != `isError=true "recovered from crashed"` {
			t.Fatalf("%s: a caught coded fail answered %v %s, want the catch's isError text", version, err, jsonText(res))
		}
	}

	post := poster(t, base+"/mcp")
	_, created := post(taskCall("tools/call", `"name":"crash","arguments":{"city":"Rome"}`, true), taskHeaders("tools/call", "crash")...)
	body := awaitTask(t, post, created)
	if !strings.Contains(body, `"status":"failed"`) || !strings.Contains(body, `"error":{"code":-32603,"message":"the job crashed on Rome"}`) || strings.Contains(body, `"content"`) {
		t.Fatalf("a task whose branch fails with a code ends failed with that error, not a result: %s", body)
	}
}

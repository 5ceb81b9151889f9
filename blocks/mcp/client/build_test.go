package client_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestBuildErrorsPointAtTheSetting(t *testing.T) {
	cases := []struct{ name, settings, want string }{
		{"no server", `{ server: {}, tool: t }`,
			`c.yaml:9:29: flows[0].process[0].settings.server (mcp-client): set url (an HTTP server) or command (a stdio server)`},
		{"url and command", `{ server: { url: "http://x/mcp", command: [a] }, tool: t }`,
			`settings.server.command (mcp-client): set url or command, not both`},
		{"a url that is not http", `{ server: { url: "ftp://x" }, tool: t }`,
			`url "ftp://x": expected an absolute http or https URL`},
		{"stdio with a url", `{ server: { url: "http://x/mcp", transport: stdio }, tool: t }`,
			`transport stdio starts a command`},
		{"sse with a command", `{ server: { command: [a], transport: sse }, tool: t }`,
			`a command is spoken to over stdio, not sse`},
		{"headers for a command", `{ server: { command: [a], headers: { X: y } }, tool: t }`,
			`headers are sent to a url`},
		{"a header from the body", `{ server: { url: "http://x/mcp", headers: { X: "{{ body.a }}" } }, tool: t }`,
			`a header may use env only`},
		{"nothing to do", `{ server: { url: "http://x/mcp" } }`,
			`set tool, resource or prompt`},
		{"two things to do", `{ server: { url: "http://x/mcp" }, tool: t, prompt: p }`,
			`set one of tool, resource or prompt, not several`},
		{"arguments for a resource", `{ server: { url: "http://x/mcp" }, resource: "a://b", arguments: "body" }`,
			`a resource takes no arguments`},
		{"structured for a prompt", `{ server: { url: "http://x/mcp" }, prompt: p, result: structured }`,
			`result structured is a tool's structuredContent`},
		{"a wrong transport", `{ server: { url: "http://x/mcp", transport: websocket }, tool: t }`,
			`websocket`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtimetest.BuildConfig(t, `service: { name: s }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: f
    source: { connector: api, settings: { path: /f } }
    process:
      - type: mcp-client
        settings: `+tc.settings+"\n", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

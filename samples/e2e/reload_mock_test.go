package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// flowMock is a flow config whose one flow is an mcp-mock with one tool.
const flowMock = `service: { name: mocks }
env:
  - { name: HTTP_PORT }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: mock
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        name: Weather mock
        settings:
          tools:
            - name: get_weather
              result: '{"city": "{{args.city}}", "forecast": "sunny"}'
`

// addedTool is what each edit of flowMock appends: a second tool.
const addedTool = `            - name: get_tides
              result: '{"port": "{{args.port}}", "high": "06:12"}'
`

// A reload of a flow config that only edits a mock's settings, by --watch or by SIGHUP, is
// taken in place as a workspace edit is: the connected client keeps its session, hears
// tools/list_changed and calls the new tool on the same session.
func TestAReloadOfAMockKeepsTheClientsSession(t *testing.T) {
	for _, trigger := range []string{"--watch", "SIGHUP"} {
		t.Run(trigger, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "mock.yaml")
			if err := os.WriteFile(file, []byte(flowMock), 0o600); err != nil {
				t.Fatal(err)
			}
			port := strconv.Itoa(freePort(t))
			args := []string{"run", "--config", dir}
			if trigger == "--watch" {
				args = append(args, "--watch")
			}
			p := startOcto(t, []string{"HTTP_PORT=" + port}, args...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			changed := make(chan struct{}, 4)
			client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-reload", Version: "1"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + port + "/mcp"}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, p.Log())
			}
			defer cs.Close()
			session := cs.ID()

			if err := os.WriteFile(file, []byte(flowMock+addedTool), 0o600); err != nil {
				t.Fatal(err)
			}
			if trigger == "SIGHUP" {
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-changed:
			case <-time.After(20 * time.Second):
				t.Fatalf("no tools/list_changed\n%s", p.Log())
			}
			p.waitCount(t, `msg="reloaded in place"`, 1)
			res, err := cs.ListTools(ctx, nil)
			if err != nil || len(res.Tools) != 2 {
				t.Fatalf("tools/list on the same session: %s %v\n%s", jsonText(res), err, p.Log())
			}
			call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_tides", Arguments: map[string]any{"port": "Brest"}})
			if err != nil || call.IsError || !strings.Contains(call.Content[0].(*mcp.TextContent).Text, `"Brest"`) {
				t.Fatalf("the new tool on the same session: %s %v\n%s", jsonText(call), err, p.Log())
			}
			if cs.ID() != session || strings.Contains(p.Log(), "msg=reloaded ") {
				t.Fatalf("the session changed (%q, was %q) or the service was built anew:\n%s", cs.ID(), session, p.Log())
			}
		})
	}
}

package mock_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/blocks/mcp/mock"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// Three flows, one per path, each running an mcp-mock named weather: the
// settings are written once and reused through an alias.
const splitFlows = `service: { name: split }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: streamable
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        name: weather
        settings: &weather
          tools: [ { name: forecast, description: Forecast, result: "sunny in {{args.city}}" } ]
  - name: sse
    source: { connector: api, settings: { path: /sse } }
    process: [ { type: mcp-mock, name: weather, settings: *weather } ]
  - name: messages
    source: { connector: api, settings: { path: /messages } }
    process: [ { type: mcp-mock, name: weather, settings: *weather } ]
`

func TestFlowsSplitPerPathShareOneServerByName(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(splitFlows), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	log := &runtimetest.Buffer{}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})

	t.Run("the three blocks are one server", func(t *testing.T) {
		first := svc.Instance("flows.streamable.process[0]").(*mock.Block).Server()
		for _, addr := range []string{"flows.sse.process[0]", "flows.messages.process[0]"} {
			if got := svc.Instance(addr).(*mock.Block).Server(); got != first {
				t.Fatalf("%s serves another server", addr)
			}
		}
	})
	t.Run("a session opened on /sse is found by its POSTs to /messages", func(t *testing.T) {
		base := "http://" + svc.Connector("api").(interface{ Addr() string }).Addr()
		ctx := testCtx(t)
		client := sdk.NewClient(&sdk.Implementation{Name: "split-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: base + "/sse"}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, log.String())
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Oslo"}})
		if err != nil || texts(res)[0] != "sunny in Oslo" {
			t.Fatalf("%s %v", jsonOf(res), err)
		}
	})
}

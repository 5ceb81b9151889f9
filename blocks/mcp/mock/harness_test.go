package mock_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/blocks/mcp/mock"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// served is a running flow config with one mock server.
type served struct {
	url string // the Streamable HTTP endpoint
	svc *runtime.Service
	log *runtimetest.Buffer
}

// live is the running mock server, found at its block's address.
func (s *served) live() *mock.Server {
	b, _ := s.svc.Instance("flows.mcp.process[0]").(*mock.Block)
	if b == nil {
		return nil
	}
	return b.Server()
}

// flowYAML puts mock settings under one flow serving the server's three
// paths.
func flowYAML(settings string) string {
	var b strings.Builder
	b.WriteString(`service: { name: mock-test }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { paths: [/mcp, /sse, /messages] } }
    process:
      - type: mcp-mock
        name: test-mock
        settings:
`)
	for _, line := range strings.Split(strings.TrimRight(settings, "\n"), "\n") {
		b.WriteString("          " + line + "\n")
	}
	return b.String()
}

// build loads a flow config holding the settings and builds it.
func build(t testing.TB, settings string) (*runtime.Service, *runtimetest.Buffer, error) {
	t.Helper()
	return buildYAML(t, flowYAML(settings))
}

// buildYAML loads the flow config text and builds it.
func buildYAML(t testing.TB, text string) (*runtime.Service, *runtimetest.Buffer, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, nil, err
	}
	log := &runtimetest.Buffer{}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewJSONHandler(log, nil))})
	return svc, log, err
}

// serve builds and starts the settings on a free port.
func serve(t testing.TB, settings string) *served {
	t.Helper()
	return serveYAML(t, flowYAML(settings))
}

// serveYAML builds and starts the flow config text (flowYAML's, changed).
func serveYAML(t testing.TB, text string) *served {
	t.Helper()
	svc, log, err := buildYAML(t, text)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	addr := svc.Connector("api").(interface{ Addr() string }).Addr()
	return &served{url: "http://" + addr + "/mcp", svc: svc, log: log}
}

// connect opens a Go SDK client session over Streamable HTTP at 2025-11-25: these tests are
// about sessions (the SDK would otherwise open with the stateless 2026-07-28).
func connect(t testing.TB, url string, opts *sdk.ClientOptions) *sdk.ClientSession {
	return connectAt(t, url, opts, mcp.Version20251125)
}

// connectAt opens a Go SDK client session over Streamable HTTP asking for revision version.
func connectAt(t testing.TB, url string, opts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "mock-test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// texts returns the text of each text item of a result.
func texts(res *sdk.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

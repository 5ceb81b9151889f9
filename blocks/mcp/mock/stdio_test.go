package mock_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// stdioServer runs the settings behind a stdio connector on pipes and
// returns the client's ends.
func stdioServer(t *testing.T, settings, connectorSettings string) (toServer io.WriteCloser, fromServer io.ReadCloser, done <-chan struct{}) {
	t.Helper()
	var b strings.Builder
	b.WriteString("connectors:\n  - { name: io, type: stdio, settings: {" + connectorSettings + "} }\n")
	b.WriteString("flows:\n  - name: mcp\n    source: { connector: io }\n    process:\n      - type: mcp-mock\n        settings:\n")
	for _, line := range strings.Split(strings.TrimRight(settings, "\n"), "\n") {
		b.WriteString("          " + line + "\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if err := svc.Start(stdio.WithStreams(context.Background(), inR, outW)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = inW.Close()
		_ = outR.Close()
		if err := svc.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return inW, outR, svc.Connector("io").(*stdio.Connector).Done()
}

func TestTheMockServesOverStdio(t *testing.T) {
	toServer, fromServer, done := stdioServer(t, weather, "")
	var n notes
	opts := n.options()
	opts.ElicitationHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}
	opts.LoggingMessageHandler = func(_ context.Context, r *sdk.LoggingMessageRequest) { n.add("log " + jsonOf(r.Params.Data)) }
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, opts)
	ctx := testCtx(t)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: fromServer, Writer: toServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a tool call answers over the pipe", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
		if err != nil || !strings.Contains(texts(res)[0], `"Oslo"`) {
			t.Fatalf("%v %v", res, err)
		}
	})
	t.Run("log messages go out before the answer", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "logged", Arguments: map[string]any{"job": "j1"}})
		if err != nil || texts(res)[0] != "done j1" {
			t.Fatalf("%v %v", res, err)
		}
		waitFor(t, func() bool { return n.has(`log "working on j1"`) })
	})
	t.Run("the server can ask the client over stdio", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask_user"})
		if err != nil || texts(res)[0] != "Hello Ada" {
			t.Fatalf("%s %v", jsonOf(res), err)
		}
	})
	_ = cs.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the connector did not finish after the client closed its end")
	}
}

func TestAnOverlongStdioLineIsAnsweredWithAnError(t *testing.T) {
	toServer, fromServer, _ := stdioServer(t, weather, "maxLineBytes: 200")
	lines := bufio.NewReader(fromServer)
	send := func(s string) {
		if _, err := io.WriteString(toServer, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1,"result"`) {
		t.Fatalf("%q %v", line, err)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	first, _ := lines.ReadString('\n')
	second, _ := lines.ReadString('\n')
	if first != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is longer than the limit of 200 bytes"}}`+"\n" ||
		second != `{"jsonrpc":"2.0","id":3,"result":{}}`+"\n" {
		t.Fatalf("answers:\n%s%s", first, second)
	}
}

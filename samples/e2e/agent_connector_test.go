package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
)

// agentMockConfig serves a mock over the agent connector, with agent.json in DATA.
const agentMockConfig = `connectors:
  - { name: agents, type: agent, settings: { dataDir: DATA } }
flows:
  - name: tools
    source: { connector: agents }
    process:
      - type: mcp-mock
        name: Weather mock
        settings:
          tools:
            - name: get_weather
              description: The current weather in a city
              inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}}'
              result: '{"city": "{{args.city}}", "forecast": "sunny"}'
`

// TestTheGoSDKClientCallsAMockOverAuthenticatedAgentConnections runs the built binary with the
// agent connector in front of mcp-mock, and connects the official Go SDK client to it the way
// the bridge does: agent.json, the handshake, then MCP lines on the connection.
func TestTheGoSDKClientCallsAMockOverAuthenticatedAgentConnections(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfg := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Replace(agentMockConfig, "DATA", data, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOctoUntil(t, nil, func(line string) bool { return strings.Contains(line, "serving agents") }, "run", "--config", cfg)
	info, err := appdata.ReadInfo(data)
	if err != nil {
		t.Fatalf("agent.json: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	connect := func(name string) *mcp.ClientSession {
		t.Helper()
		conn, err := handshake.Dial(ctx, info)
		if err != nil {
			t.Fatalf("Dial: %v", err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).
			Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			t.Fatalf("initialize: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, city string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": city}})
		if err != nil {
			return err
		}
		if got, want := res.Content[0].(*mcp.TextContent).Text, `{"city": "`+city+`", "forecast": "sunny"}`; got != want {
			return fmt.Errorf("get_weather(%s) = %s, want %s", city, got, want)
		}
		return nil
	}

	first := connect("agent-one")
	if name := first.InitializeResult().ServerInfo.Name; name != "Weather mock" {
		t.Fatalf("initialize names %q", name)
	}
	second := connect("agent-two")

	t.Run("two sessions call at once", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 40)
		for i := range 20 {
			for _, cs := range []*mcp.ClientSession{first, second} {
				wg.Go(func() { errs <- call(cs, fmt.Sprintf("City%d", i)) })
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("a client without the handshake gets no MCP answer", func(t *testing.T) {
		raw, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(info.Port)))
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		raw.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(raw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
		got, _ := io.ReadAll(raw)
		if strings.Contains(string(got), "jsonrpc") || !strings.HasPrefix(string(got), `{"error":"not an octo agent handshake`) {
			t.Fatalf("got %q; want a handshake error and the connection closed", got)
		}
	})

	t.Run("a line over 64 MB is answered with a parse error and the session goes on", func(t *testing.T) {
		conn, err := handshake.Dial(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(time.Minute))
		r := bufio.NewReader(conn)
		exchange := func(line []byte) string {
			t.Helper()
			if _, err := conn.Write(append(line, '\n')); err != nil {
				t.Fatal(err)
			}
			answer, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			return answer
		}
		exchange([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		huge := bytes.Repeat([]byte("x"), 64<<20+1)
		if got := exchange(huge); !strings.Contains(got, `"code":-32700`) || !strings.Contains(got, "67108864 bytes") {
			t.Fatalf("a line of 64 MB + 1 was answered %.200s", got)
		}
		if got := exchange([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); got != `{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
			t.Fatalf("ping after the long line: %q", got)
		}
	})

	t.Run("a bridge with the wrong token is refused and the sessions go on", func(t *testing.T) {
		wrong := info
		other, _ := appdata.NewInfo(info.Port)
		wrong.Token = other.Token
		if _, err := handshake.Dial(ctx, wrong); !errors.Is(err, handshake.ErrAuth) {
			t.Fatalf("Dial: %v, want ErrAuth", err)
		}
		for _, cs := range []*mcp.ClientSession{first, second} {
			if err := call(cs, "Oslo"); err != nil {
				t.Fatal(err)
			}
		}
		p.waitCount(t, "agent connection refused", 1) // once a second at most, however many there are
	})

	t.Run("stopping removes agent.json and closes the sessions", func(t *testing.T) {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatal("octo did not stop")
		}
		if _, err := appdata.ReadInfo(data); !errors.Is(err, appdata.ErrNoApp) {
			t.Fatalf("after stopping: %v, want ErrNoApp", err)
		}
		if err := call(first, "Oslo"); err == nil {
			t.Fatal("a call succeeded after octo stopped")
		}
	})
}

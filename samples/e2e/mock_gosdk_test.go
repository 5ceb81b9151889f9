package e2e

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveWeatherMock runs `octo serve samples/weather-mock` on a free port and
// returns the MCP address it logged.
func serveWeatherMock(t *testing.T, extra ...string) (string, *proc) {
	t.Helper()
	return serveWorkspace(t, "samples/weather-mock", extra...)
}

// serveWorkspace serves a sample workspace folder with the built binary on a free port and
// returns its Streamable HTTP endpoint, checked to be on that port.
func serveWorkspace(t *testing.T, folder string, extra ...string) (string, *proc) {
	t.Helper()
	port := freePort(t)
	args := append([]string{"serve", folder, "--port", strconv.Itoa(port)}, extra...)
	p := startOcto(t, nil, args...)
	m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(p.Log())
	if m == nil {
		t.Fatalf("no address in the log:\n%s", p.Log())
	}
	if want := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"; m[1] != want {
		t.Fatalf("address %s, want %s", m[1], want)
	}
	return m[1], p
}

// TestGoSDKClientUsesTheWeatherMock drives the weather sample, served by the
// built binary, with the official Go SDK client over Streamable HTTP.
func TestGoSDKClientUsesTheWeatherMock(t *testing.T) {
	url, p := serveWeatherMock(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var progress []float64
	wire := &wireLog{}
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		},
	})
	// The session revision's wire is what this test reads; 2026-07-28 has its own test.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: wire}}, sessionRevision)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	t.Run("the handshake names the server, its instructions and a session", func(t *testing.T) {
		res := cs.InitializeResult()
		if res.ServerInfo.Name != "Weather mock" || res.Instructions != "Use get_weather for the weather in a city." ||
			res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged || res.Capabilities.Logging == nil {
			t.Fatalf("initialize = %s", jsonText(res))
		}
		if cs.ID() == "" {
			t.Fatal("no Mcp-Session-Id")
		}
	})
	t.Run("the tools are listed with their schemas", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 2 || res.Tools[0].Name != "get_weather" || res.Tools[1].Name != "slow_report" {
			t.Fatalf("%s %v", jsonText(res), err)
		}
		if got := jsonText(res.Tools[1].InputSchema); got != `{"type":"object"}` {
			t.Fatalf("an empty schema is listed as %s", got)
		}
	})
	t.Run("get_weather answers with the city it was given", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"city": "Lisbon", "forecast": "sunny", "temperatureC": 21}` {
			t.Fatalf("%s %v", jsonText(res), err)
		}
	})
	t.Run("get_weather without a city is a failed call naming it", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"city"`) {
			t.Fatalf("%s %v", jsonText(res), err)
		}
	})
	t.Run("an unknown tool is -32602 Unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_wether"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32602 || !strings.Contains(we.Message, "Unknown tool") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the readme and a station read as written", func(t *testing.T) {
		readme, err1 := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"})
		station, err2 := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "stations://Oslo"})
		if err1 != nil || err2 != nil || readme.Contents[0].Text != "# Weather service" || readme.Contents[0].MIMEType != "text/markdown" ||
			station.Contents[0].Text != "Station Oslo: 21 °C" || station.Contents[0].URI != "stations://Oslo" {
			t.Fatalf("%s %s %v %v", jsonText(readme), jsonText(station), err1, err2)
		}
	})
	t.Run("plan_trip fills in the city", func(t *testing.T) {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan_trip", Arguments: map[string]string{"city": "Porto"}})
		if err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != "Plan a day in Porto that suits the weather." {
			t.Fatalf("%s %v", jsonText(res), err)
		}
	})
	t.Run("slow_report reports progress and stops when cancelled", func(t *testing.T) {
		cctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "slow_report", Meta: mcp.Meta{"progressToken": "r1"}})
			done <- err
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(progress)
			mu.Unlock()
			if n >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no progress within 10s")
			}
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		if err := <-done; err == nil {
			t.Fatal("the cancelled call answered")
		}
		waitLog(t, p, "notifications/cancelled")
	})
	t.Run("the traffic log names each request and answer", func(t *testing.T) {
		waitLog(t, p, "Weather mock  in  tools/call get_weather")
		waitLog(t, p, "Weather mock  out result of resources/read docs://readme")
	})
}

// TestGoSDKSSEClientUsesTheLegacyTransport talks to /sse and /messages.
func TestGoSDKSSEClientUsesTheLegacyTransport(t *testing.T) {
	url, _ := serveWeatherMock(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-sse", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: strings.TrimSuffix(url, "/mcp") + "/sse"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Rome"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"Rome"`) {
		t.Fatalf("%s %v", jsonText(res), err)
	}
}

func waitLog(t *testing.T, p *proc, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.Log(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never showed %q:\n%s", text, p.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

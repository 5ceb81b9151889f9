package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKClientStartsTheWeatherMockOverStdio starts `octo serve … --stdio`
// as a child process, as an AI app does, through the SDK's CommandTransport.
func TestGoSDKClientStartsTheWeatherMockOverStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(octoBin, "serve", "samples/weather-mock", "Weather mock", "--stdio")
	cmd.Dir = repoRoot()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-stdio", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Run("the handshake names the server", func(t *testing.T) {
		if res := cs.InitializeResult(); res.ServerInfo.Name != "Weather mock" {
			t.Fatalf("initialize = %s", jsonText(res))
		}
	})
	t.Run("get_weather answers over the pipe", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != `{"city": "Oslo", "forecast": "sunny", "temperatureC": 21}` {
			t.Fatalf("%s %v", jsonText(res), err)
		}
	})
	t.Run("resources and prompts answer too", func(t *testing.T) {
		station, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "stations://Bergen"})
		if err != nil || station.Contents[0].Text != "Station Bergen: 21 °C" {
			t.Fatalf("%s %v", jsonText(station), err)
		}
		prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan_trip", Arguments: map[string]string{"city": "Bergen"}})
		if err != nil || !strings.Contains(prompt.Messages[0].Content.(*mcp.TextContent).Text, "Bergen") {
			t.Fatalf("%s %v", jsonText(prompt), err)
		}
	})
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Weather mock  in  tools/call get_weather") {
		t.Errorf("the traffic log is not on stderr:\n%s", stderr.String())
	}
}

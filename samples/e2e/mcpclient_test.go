package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/client"
)

// octo's own MCP client drives the built binary: the mock over stdio (as
// `octo serve … --stdio`, the way an AI app starts it) and the router over
// HTTP and stdio.
func TestOctoClientUsesTheMockOverStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	c, err := client.Dial(ctx, client.Options{
		Command: []string{octoBin, "serve", "samples/weather-mock", "Weather mock", "--stdio"},
		Dir:     repoRoot(), Stderr: &stderr,
	})
	if err != nil {
		t.Fatalf("dial: %v\n%s", err, stderr.String())
	}
	if init := c.InitializeResult(); init.ServerInfo.Name != "Weather mock" || init.Instructions == "" {
		t.Fatalf("initialize = %+v", init)
	}
	res, err := c.CallTool(ctx, "get_weather", json.RawMessage(`{"city":"Oslo"}`), client.CallOptions{})
	if err != nil || res.Content[0].Text != `{"city": "Oslo", "forecast": "sunny", "temperatureC": 21}` {
		t.Fatalf("%+v %v", res, err)
	}
	station, err := c.ReadResource(ctx, "stations://Bergen")
	if err != nil || station[0].Text != "Station Bergen: 21 °C" {
		t.Fatalf("%+v %v", station, err)
	}
	prompt, err := c.GetPrompt(ctx, "plan_trip", map[string]string{"city": "Bergen"})
	if err != nil || !strings.Contains(prompt.Messages[0].Content.Text, "Bergen") {
		t.Fatalf("%+v %v", prompt, err)
	}
	t.Run("a slow call is cancelled on the pipe", func(t *testing.T) {
		cctx, ccancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer ccancel()
		if _, err := c.CallTool(cctx, "slow_report", nil, client.CallOptions{}); err == nil {
			t.Fatal("the call was not cancelled")
		}
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
	start := time.Now()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("octo took %s to end after its input closed", took)
	}
	if !strings.Contains(stderr.String(), "notifications/cancelled") {
		t.Errorf("the mock did not see the cancellation:\n%s", stderr.String())
	}
}

func TestOctoClientUsesTheRouterOverHTTPAndStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base, _ := runSample(t, "mcp-router")
	for name, o := range map[string]client.Options{
		"http":  {URL: base + "/mcp"},
		"stdio": {Command: []string{octoBin, "run", "--config", "samples/mcp-router", "--stdio"}, Dir: repoRoot()},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := client.Dial(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if init := c.InitializeResult(); init.ServerInfo.Name != "weather-tools" || init.ProtocolVersion != routerVersion {
				t.Fatalf("initialize = %+v", init)
			}
			res, err := c.CallTool(ctx, "forecast", json.RawMessage(`{"city":"Paris"}`), client.CallOptions{})
			if err != nil || res.IsError || string(res.StructuredContent.(json.RawMessage)) != `{"city":"Paris","summary":"Sunny, 24C"}` {
				t.Fatalf("%+v %v", res, err)
			}
			templates, err := c.ListResourceTemplates(ctx)
			if err != nil || len(templates) != 1 {
				t.Fatalf("%+v %v", templates, err)
			}
		})
	}
}

// The mcp-client sample: a router tool calls the weather mock, which octo starts over stdio.
func TestMCPClientSampleCallsTheMockThroughTheRouter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base, p := runSample(t, "mcp-client")
	c, err := client.Dial(ctx, client.Options{URL: base + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for range 3 {
		res, err := c.CallTool(ctx, "plan_day", json.RawMessage(`{"city":"Oslo"}`), client.CallOptions{})
		if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, `"source":"Weather mock"`) {
			t.Fatalf("%+v %v\n%s", res, err, p.Log())
		}
	}
	report, err := c.CallTool(ctx, "station_report", json.RawMessage(`{"station":"Bergen"}`), client.CallOptions{})
	if err != nil || report.Content[0].Text != "Station Bergen: 21 °C" {
		t.Fatalf("%+v %v", report, err)
	}
}

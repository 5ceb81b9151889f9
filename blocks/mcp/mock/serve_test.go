package mock_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const weather = `
instructions: Use get_weather for the weather in a city.
variables: { token: s3cret }
tools:
  - name: get_weather
    description: The current weather in a city.
    inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
    result: '{"city": "{{args.city}}", "forecast": "sunny", "temperatureC": 21}'
  - name: echo
    description: Echoes its text and a variable
    result: "You said {{args.text}}; the token is {{token}}"
  - name: structured
    description: Answers JSON checked against its output schema
    inputSchema: '{"type":"object","properties":{"n":{}}}'
    outputSchema: '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}'
    result: '{"n": {{args.n}}}'
  - name: broken_on_purpose
    description: Fails even though it has an output schema
    outputSchema: '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}'
    result: Upstream is down
    isError: true
  - name: hidden
    result: never
    enabled: false
  - name: slow
    description: Waits a minute
    result: Done.
    delayMs: 60000
  - name: paced
    description: Waits a little
    result: Done.
    delayMs: 1200
  - name: ask_user
    description: Asks the user
    steps: [ { elicit: "Your name?", as: user } ]
    result: "Hello {{args.user.content.name}}"
  - name: logged
    description: Logs then answers
    steps: [ { log: "working on {{args.job}}" }, { progress: 1, total: 2 } ]
    result: "done {{args.job}}"
  - name: linked
    description: Links a resource
    content:
      - resourceLink: { uri: "docs://readme", name: readme, mimeType: text/markdown }
resources:
  - { uri: docs://readme, name: readme, mimeType: text/markdown, text: "# Weather service" }
  - { uri: "stations://{name}", name: station, text: "Station {{params.name}}: 21 °C" }
prompts:
  - name: plan_trip
    description: Plan a day out
    arguments: [ { name: city, required: true } ]
    messages: [ { role: user, text: "Plan a day in {{args.city}} that suits the weather." } ]
`

func TestToolsAnswerFromTheirSettings(t *testing.T) {
	s := serve(t, weather)
	cs := connect(t, s.url, nil)
	ctx := testCtx(t)
	call := func(name string, args map[string]any) (*sdk.CallToolResult, error) {
		return cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	}
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		text    string
		isError bool
		check   func(*sdk.CallToolResult) string
	}{
		{name: "an argument fills the JSON result, escaped", tool: "get_weather", args: map[string]any{"city": `Pa"ris`},
			text: `{"city": "Pa\"ris", "forecast": "sunny", "temperatureC": 21}`},
		{name: "a client sending a variable's tag gets the tag back, not the value", tool: "echo",
			args: map[string]any{"text": "{{token}}"}, text: "You said {{token}}; the token is s3cret"},
		{name: "a missing required argument is a failed call naming it", tool: "get_weather", args: map[string]any{},
			text: `Invalid arguments for tool get_weather: missing required argument "city"`, isError: true},
		{name: "an argument of the wrong type is a failed call naming it", tool: "get_weather", args: map[string]any{"city": 7},
			isError: true, check: func(r *sdk.CallToolResult) string {
				if !strings.Contains(texts(r)[0], `"city"`) {
					return "the error does not name city"
				}
				return ""
			}},
		{name: "a result matching the output schema is also structured content", tool: "structured", args: map[string]any{"n": 4},
			text: `{"n": 4}`, check: func(r *sdk.CallToolResult) string {
				if jsonOf(r.StructuredContent) != `{"n":4}` {
					return "structuredContent = " + jsonOf(r.StructuredContent)
				}
				return ""
			}},
		{name: "a result not matching the output schema is a failed call saying why", tool: "structured", args: map[string]any{"n": "four"},
			isError: true, check: func(r *sdk.CallToolResult) string {
				if !strings.Contains(texts(r)[0], "does not match its outputSchema") || r.StructuredContent != nil {
					return "got " + jsonOf(r)
				}
				return ""
			}},
		{name: "isError sends the result as a failed call without structured content", tool: "broken_on_purpose",
			text: "Upstream is down", isError: true},
		{name: "a resource link item names the resource", tool: "linked", check: func(r *sdk.CallToolResult) string {
			if l, ok := r.Content[0].(*sdk.ResourceLink); !ok || l.URI != "docs://readme" || l.Name != "readme" {
				return "got " + jsonOf(r.Content)
			}
			return ""
		}},
		{name: "a client without elicitation gets a failed call saying so", tool: "ask_user", isError: true,
			check: func(r *sdk.CallToolResult) string {
				if !strings.Contains(texts(r)[0], "did not declare") {
					return "got " + jsonOf(r.Content)
				}
				return ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := call(c.tool, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isError {
				t.Fatalf("isError = %v, want %v: %s", res.IsError, c.isError, jsonOf(res))
			}
			if c.text != "" && (len(texts(res)) != 1 || texts(res)[0] != c.text) {
				t.Fatalf("text = %q, want %q", texts(res), c.text)
			}
			if c.check != nil {
				if msg := c.check(res); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
	t.Run("an unknown tool is -32602 Unknown tool", func(t *testing.T) {
		_, err := call("nope", nil)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32602 || !strings.Contains(we.Message, "Unknown tool") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a switched-off tool is neither listed nor callable", func(t *testing.T) {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == "hidden" {
				t.Fatal("hidden is listed")
			}
		}
		if _, err := call("hidden", nil); err == nil {
			t.Fatal("hidden answered")
		}
	})
}

func TestADelayedToolReportsProgressAndStopsWhenCancelled(t *testing.T) {
	s := serve(t, weather)
	var mu sync.Mutex
	var progress []float64
	cs := connect(t, s.url, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Progress)
		mu.Unlock()
	}})
	// When the ticks come is the wait's own business (TestAWaitReports...);
	// over the wire the start and the end always come, and a tick between.
	t.Run("a client with a progress token hears at the start, between and at the end", func(t *testing.T) {
		res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "paced", Meta: sdk.Meta{"progressToken": "p"}})
		if err != nil || texts(res)[0] != "Done." {
			t.Fatalf("%v %v", res, err)
		}
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return slices.Contains(progress, 1200) })
		mu.Lock()
		defer mu.Unlock()
		got := slices.Sorted(slices.Values(progress))
		n := len(got)
		if n < 2 || n > 3 || got[0] != 0 || got[n-1] != 1200 || n == 3 && (got[1] <= 0 || got[1] >= 1200) {
			t.Fatalf("progress = %v, want 0, at most one tick between, then 1200", progress)
		}
	})
	t.Run("cancelling the call ends the wait at once", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow"})
			done <- err
		}()
		waitForLog(t, s, `"msg":"tools/call slow"`) // the server has the call
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the call answered")
		}
		// The call waits a minute; the log says it ended once cancelled.
		waitForLog(t, s, `"kind":"cancelled"`)
	})
}

// waitForLog waits until the server's log holds text.
func waitForLog(t *testing.T, s *served, text string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.log.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never showed %s:\n%s", text, s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestResourcesAndPromptsAnswerFromTheirSettings(t *testing.T) {
	s := serve(t, weather)
	cs := connect(t, s.url, nil)
	ctx := testCtx(t)
	t.Run("a template resource answers any fitting URI with its parts", func(t *testing.T) {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "stations://S%C3%A3o"})
		if err != nil || res.Contents[0].URI != "stations://S%C3%A3o" || res.Contents[0].Text != "Station São: 21 °C" || res.Contents[0].MIMEType != "text/plain" {
			t.Fatalf("%s %v", jsonOf(res), err)
		}
	})
	t.Run("templates are listed apart from fixed resources", func(t *testing.T) {
		fixed, err1 := cs.ListResources(ctx, nil)
		tmpl, err2 := cs.ListResourceTemplates(ctx, nil)
		if err1 != nil || err2 != nil || len(fixed.Resources) != 1 || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "stations://{name}" {
			t.Fatalf("%s %s %v %v", jsonOf(fixed), jsonOf(tmpl), err1, err2)
		}
	})
	t.Run("an unknown URI is -32002 Resource not found", func(t *testing.T) {
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://nope"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32002 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a prompt fills its arguments", func(t *testing.T) {
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "plan_trip", Arguments: map[string]string{"city": "Rome"}})
		if err != nil || res.Messages[0].Content.(*sdk.TextContent).Text != "Plan a day in Rome that suits the weather." {
			t.Fatalf("%s %v", jsonOf(res), err)
		}
	})
	t.Run("a prompt without its required argument is a JSON-RPC error", func(t *testing.T) {
		_, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "plan_trip"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32602 || !strings.Contains(we.Message, "city") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the traffic log summarises each request and answer", func(t *testing.T) {
		waitForLog(t, s, `"msg":"result of prompts/get plan_trip"`)
		waitForLog(t, s, `"msg":"resources/read stations://S%C3%A3o"`)
	})
}

func TestTheLegacySSETransportSharesTheServer(t *testing.T) {
	s := serve(t, weather)
	ctx := testCtx(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "sse-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: strings.TrimSuffix(s.url, "/mcp") + "/sse"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil || !strings.Contains(texts(res)[0], `"Oslo"`) {
		t.Fatalf("%v %v", res, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got == "" {
		t.Fatal("no protocol version")
	}
}

func TestASeedMakesDynamicValuesReproducible(t *testing.T) {
	settings := `
seed: 7
tools: [ { name: roll, description: Rolls, result: "{{$randomInt 1 1000000}} {{$uuid}}" } ]
`
	var answers []string
	for range 2 {
		s := serve(t, settings)
		cs := connect(t, s.url, nil)
		res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "roll"})
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, texts(res)[0])
	}
	if answers[0] != answers[1] {
		t.Fatalf("two servers with one seed answered %q and %q", answers[0], answers[1])
	}
}

func TestFlowConfigsRefuseWhatAWorkspaceWouldLeaveOut(t *testing.T) {
	cases := []struct{ name, settings, want string }{
		{"a duplicate tool stops the build", "tools: [ { name: a, result: x }, { name: a, result: y } ]", `duplicate tool name "a"`},
		{"cors belongs to the connector", "cors: true\ntools: [ { name: a, result: x } ]", "cors is a setting of the http connector"},
		{"a bad tag stops the build", `tools: [ { name: a, result: "{{$nope}}" } ]`, `unknown dynamic variable "$nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := build(t, c.settings)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if n := strings.Count(err.Error(), c.want); n != 1 {
				t.Fatalf("reported %d times (once per flow?):\n%v", n, err)
			}
		})
	}
}

var _ = io.EOF

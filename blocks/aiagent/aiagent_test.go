package aiagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// model is a stub model server: a real HTTP server that answers as script says, given the
// requests so far, and keeps every request it got.
type model struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
}

func newModel(t *testing.T, script func(n int, req map[string]any) (int, string)) *model {
	md := &model{}
	md.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		md.mu.Lock()
		md.requests = append(md.requests, req)
		md.headers = append(md.headers, r.Header.Clone())
		n := len(md.requests)
		md.mu.Unlock()
		status, body := script(n, req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(md.srv.Close)
	return md
}

// agentConfig is a flow running an ai-agent with a weather tool and a failing tool.
func agentConfig(provider, url, extra string) string {
	return fmt.Sprintf(`service: { name: agent }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: plan
    source: { connector: api, settings: { path: /plan } }
    process:
      - type: ai-agent
        settings:
          provider: %s
          baseUrl: %s
          apiKey: test-key
          model: test-model
          system: You plan days out.
          prompt: 'Plan a day in {{ body.city }}.'
%s          tools:
            - name: get_weather
              description: The weather in a city.
              inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
              process:
                - type: set-payload
                  settings: { value: '{"city": body.city, "forecast": "sunny"}' }
            - name: book
              description: Books a table.
              process:
                - type: fail
                  settings: { kind: conflict, message: fully booked }
`, provider, url, extra)
}

func run(t *testing.T, cfg string) (*runtime.Message, error) {
	t.Helper()
	svc := runtimetest.StartConfig(t, cfg, nil)
	return runtimetest.RunFlow(t, svc, "plan", runtime.NewMessage([]byte(`{"city":"Oslo"}`)))
}

func TestOpenAIToolLoop(t *testing.T) {
	md := newModel(t, func(n int, req map[string]any) (int, string) {
		if n == 1 {
			return 200, `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
				{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},
				{"id":"c2","type":"function","function":{"name":"book","arguments":"{}"}},
				{"id":"c3","type":"function","function":{"name":"get_weather","arguments":"{}"}},
				{"id":"c4","type":"function","function":{"name":"nope","arguments":"{}"}}]}}]}`
		}
		return 200, `{"choices":[{"message":{"role":"assistant","content":"Walk in Oslo."}}]}`
	})
	out, err := run(t, agentConfig("openai", md.srv.URL+"/v1", ""))
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := out.Body(); body != "Walk in Oslo." {
		t.Fatalf("body = %v", body)
	}
	if md.headers[0].Get("Authorization") != "Bearer test-key" {
		t.Errorf("auth: %q", md.headers[0].Get("Authorization"))
	}
	first, _ := json.Marshal(md.requests[0])
	for _, want := range []string{`"model":"test-model"`, `{"content":"You plan days out.","role":"system"}`,
		`{"content":"Plan a day in Oslo.","role":"user"}`, `"name":"get_weather"`, `"max_tokens":1024`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("first request lacks %s:\n%s", want, first)
		}
	}
	second, _ := json.Marshal(md.requests[1]["messages"])
	for _, want := range []string{
		`{"content":"{\"city\":\"Oslo\",\"forecast\":\"sunny\"}","role":"tool","tool_call_id":"c1"}`,
		`{"content":"fully booked","role":"tool","tool_call_id":"c2"}`,
		`"content":"invalid arguments for get_weather`,
		`{"content":"there is no tool \"nope\"","role":"tool","tool_call_id":"c4"}`,
		`"tool_calls":[{"function":{"arguments":"{\"city\":\"Oslo\"}","name":"get_weather"},"id":"c1","type":"function"}`,
	} {
		if !strings.Contains(string(second), want) {
			t.Errorf("second request lacks %s:\n%s", want, second)
		}
	}
	if it := out.Vars["agent"].(map[string]any)["iterations"]; fmt.Sprint(it) != "2" {
		t.Errorf("iterations = %v", it)
	}
}

func TestAnthropicToolLoop(t *testing.T) {
	md := newModel(t, func(n int, req map[string]any) (int, string) {
		if n == 1 {
			return 200, `{"content":[{"type":"text","text":"Let me check."},
				{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Oslo"}},
				{"type":"tool_use","id":"t2","name":"book","input":{}}],"stop_reason":"tool_use"}`
		}
		return 200, `{"content":[{"type":"text","text":"{\"plan\": \"walk\"}"}],"stop_reason":"end_turn"}`
	})
	out, err := run(t, agentConfig("anthropic", md.srv.URL+"/v1", "          result: json\n"))
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := out.Body(); fmt.Sprint(body) != "map[plan:walk]" {
		t.Fatalf("body = %v", body)
	}
	if h := md.headers[0]; h.Get("x-api-key") != "test-key" || h.Get("anthropic-version") != "2023-06-01" {
		t.Errorf("headers: %v", h)
	}
	if md.requests[0]["system"] != "You plan days out." {
		t.Errorf("system: %v", md.requests[0]["system"])
	}
	second, _ := json.Marshal(md.requests[1]["messages"])
	for _, want := range []string{
		`{"content":[{"text":"Let me check.","type":"text"},{"id":"t1","input":{"city":"Oslo"},"name":"get_weather","type":"tool_use"}`,
		`{"content":"{\"city\":\"Oslo\",\"forecast\":\"sunny\"}","tool_use_id":"t1","type":"tool_result"}`,
		`{"content":"fully booked","is_error":true,"tool_use_id":"t2","type":"tool_result"}`,
	} {
		if !strings.Contains(string(second), want) {
			t.Errorf("second request lacks %s:\n%s", want, second)
		}
	}
}

func TestTheLoopIsBounded(t *testing.T) {
	md := newModel(t, func(int, map[string]any) (int, string) {
		return 200, `{"choices":[{"message":{"role":"assistant","tool_calls":[
			{"id":"c","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}`
	})
	_, err := run(t, agentConfig("openai", md.srv.URL, "          maxIterations: 3\n"))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindUpstream || !strings.Contains(e.Msg, "after 3 answers") || len(md.requests) != 3 {
		t.Fatalf("err = %v after %d requests", err, len(md.requests))
	}
}

func TestAModelAPIErrorIsUpstreamAndHidesTheBody(t *testing.T) {
	md := newModel(t, func(int, map[string]any) (int, string) {
		return 401, `{"error":{"message":"invalid key sk-123"}}`
	})
	_, err := run(t, agentConfig("openai", md.srv.URL, ""))
	e := runtime.ErrorOf(err)
	if e.Kind != runtime.KindUpstream || e.Msg != "the model's API answered HTTP 401" || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v (%s)", err, e.Msg)
	}
	if strings.Contains(e.Msg, "sk-123") {
		t.Fatal("the message shows the API's body")
	}
}

func TestMCPOnlyToolMetadataIsABuildError(t *testing.T) {
	cfg := strings.Replace(agentConfig("openai", "http://127.0.0.1:1", ""), `              description: The weather in a city.
`, `              description: The weather in a city.
              title: Weather
              annotations: { readOnlyHint: true }
              outputSchema: '{"type": "object"}'
`, 1)
	_, err := runtimetest.BuildConfig(t, cfg, nil)
	if err == nil {
		t.Fatal("built")
	}
	for _, want := range []string{
		"settings.tools[0].title (ai-agent): title is MCP-only metadata",
		"settings.tools[0].annotations (ai-agent): annotations is MCP-only metadata",
		"settings.tools[0].outputSchema (ai-agent): outputSchema is MCP-only metadata",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
}

func TestToolNamesAModelTakes(t *testing.T) {
	cfg := strings.Replace(agentConfig("openai", "http://127.0.0.1:1", ""), "- name: book", "- name: book.table", 1)
	_, err := runtimetest.BuildConfig(t, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `tool name "book.table": a model takes 1 to 64 of A-Z a-z 0-9 _ -`) {
		t.Fatalf("err = %v", err)
	}
}

func TestASlowModelTimesOut(t *testing.T) {
	release := make(chan struct{})
	md := newModel(t, func(int, map[string]any) (int, string) {
		<-release
		return 200, `{"choices":[{"message":{"content":"late"}}]}`
	})
	defer close(release)
	_, err := run(t, agentConfig("openai", md.srv.URL, "          timeout: 200ms\n"))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindTimeout || e.Msg != "the model did not answer within 200ms" {
		t.Fatalf("err = %v", err)
	}
}

// An agent's tool can be another MCP server's tool, through mcp-client.
func TestAToolThatCallsAnotherMCPServer(t *testing.T) {
	mock := runtimetest.StartConfig(t, `service: { name: upstream }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        settings:
          tools:
            - name: get_weather
              result: '{"city": "{{args.city}}", "forecast": "rain"}'
`, nil)
	upstream := "http://" + mock.Connector("api").(interface{ Addr() string }).Addr() + "/mcp"
	md := newModel(t, func(n int, req map[string]any) (int, string) {
		if n == 1 {
			return 200, `{"choices":[{"message":{"tool_calls":[
				{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}`
		}
		msgs, _ := json.Marshal(req["messages"])
		if !strings.Contains(string(msgs), `\"forecast\": \"rain\"`) {
			return 200, `{"choices":[{"message":{"content":"the tool result did not arrive"}}]}`
		}
		return 200, `{"choices":[{"message":{"content":"Museum day."}}]}`
	})
	cfg := strings.Replace(agentConfig("openai", md.srv.URL, ""), `                - type: set-payload
                  settings: { value: '{"city": body.city, "forecast": "sunny"}' }`, `                - type: mcp-client
                  settings: { server: { url: "`+upstream+`" }, tool: get_weather }`, 1)
	out, err := run(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := out.Body(); body != "Museum day." {
		t.Fatalf("body = %v", body)
	}
}

// progressLog records what a flow reports.
type progressLog struct {
	mu    sync.Mutex
	steps []string
}

func (p *progressLog) ReportProgress(_ context.Context, r runtime.Progress) {
	p.mu.Lock()
	p.steps = append(p.steps, fmt.Sprintf("%v %s", r.Progress, r.Message))
	p.mu.Unlock()
}

func TestEachStepIsReportedToACallerThatAsks(t *testing.T) {
	md := newModel(t, func(n int, _ map[string]any) (int, string) {
		if n == 1 {
			return 200, `{"choices":[{"message":{"tool_calls":[
				{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}`
		}
		return 200, `{"choices":[{"message":{"content":"done"}}]}`
	})
	svc := runtimetest.StartConfig(t, agentConfig("openai", md.srv.URL, ""), nil)
	flow := svc.Instance("flows.plan").(*runtime.Flow)
	log := &progressLog{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := flow.Run(runtime.WithProgress(ctx, log), runtime.NewMessage([]byte(`{"city":"Oslo"}`))); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log.steps, "|"); got != "1 asking the model|2 calling get_weather|3 asking the model" {
		t.Fatalf("progress: %s", got)
	}
}

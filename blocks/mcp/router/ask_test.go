package router_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// askingTools ask the client's user and model before they answer.
const askingTools = `        tools:
          - name: delete
            description: deletes a file once the user agrees
            process:
              - type: ask
                settings:
                  elicit:
                    message: 'Delete {{ body.path }}?'
                    schema: { type: object, properties: { confirm: { type: boolean } }, required: [confirm] }
                  into: vars.confirm
              - type: switch
                cases:
                  - when: vars.confirm.action == "accept" && vars.confirm.content.confirm
                    process:
                      - type: set-payload
                        settings: { value: '"deleted " + body.path' }
                default:
                  - type: set-payload
                    settings: { value: '"kept " + body.path + " (" + vars.confirm.action + ")"' }
          - name: summarize
            description: has the client's model summarize a text
            process:
              - type: ask
                settings:
                  sample:
                    prompt: 'Summarize: {{ body.text }}'
                    systemPrompt: Be brief.
                    maxTokens: 50
              - type: ask
                settings:
                  elicit: { message: 'Keep "{{ vars.answer.content.text }}"?', schema: { type: object, properties: { keep: { type: boolean } } } }
                  into: vars.keep
              - type: set-payload
                settings: { value: 'vars.answer.content.text + (vars.keep.content.keep ? " (kept)" : " (dropped)")' }
          - name: connect
            description: asks the user to open a link
            process:
              - type: ask
                settings:
                  elicit: { message: Sign in to the tracker, url: 'https://tracker.example/connect?user={{ body.user }}' }
              - type: set-payload
                settings: { value: 'vars.answer.action' }
          - name: where
            description: asks for the client's roots, and its user if it can
            process:
              - type: ask
                settings: { roots: true, into: vars.roots }
              - type: ask
                settings:
                  elicit: { message: "Which one?", schema: { type: object, properties: { pick: { type: string } } } }
                  optional: true
              - type: set-payload
                settings: { value: 'concat(map(vars.roots.roots, .uri), [vars.answer == nil ? "no answer" : vars.answer.content.pick])' }
          - name: twice
            description: asks twice into one var, a mistake
            process:
              - type: ask
                settings: { sample: { prompt: one } }
              - type: ask
                settings: { sample: { prompt: two } }
          - name: welcome
            description: asks the user, the model and the roots at once
            process:
              - type: ask
                settings:
                  questions:
                    - elicit: { message: "Your name?", schema: { type: object, properties: { name: { type: string } } } }
                      into: vars.user
                    - sample: { prompt: Say hello }
                      into: vars.hello
                    - roots: true
                      into: vars.roots
              - type: set-payload
                settings: { value: 'vars.hello.content.text + ", " + vars.user.content.name + " in " + vars.roots.roots[0].uri' }
`

// answering is a client that answers elicitations and samplings, counting them.
func answering(asked *atomic.Int32, keep bool) *sdk.ClientOptions {
	return &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Sampling: &sdk.SamplingCapabilities{},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			switch {
			case req.Params.Mode == "url":
				if req.Params.URL != "https://tracker.example/connect?user=ana" || req.Params.ElicitationID == "" {
					return nil, fmt.Errorf("url elicitation: %+v", req.Params)
				}
				return &sdk.ElicitResult{Action: "accept"}, nil
			case strings.HasPrefix(req.Params.Message, "Delete "):
				if req.Params.Message != "Delete /tmp/a?" {
					return nil, fmt.Errorf("message %q", req.Params.Message)
				}
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"keep": keep}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			asked.Add(1)
			text := req.Params.Messages[0].Content.(*sdk.TextContent).Text
			if text != "Summarize: a long story" || req.Params.SystemPrompt != "Be brief." || req.Params.MaxTokens != 50 {
				return nil, fmt.Errorf("sampling: %q %+v", text, req.Params)
			}
			return &sdk.CreateMessageResult{Role: "assistant", Model: "test", Content: &sdk.TextContent{Text: "short"}}, nil
		},
	}
}

// The official Go SDK client answers what the tools' ask blocks ask, at 2026-07-28 (rounds of
// input_required, the branch run again with the answers) and at 2025-11-25 over a session
// (requests on the call's stream are the stdio e2e test's): the answers land in vars.
func TestAskBlocksAreAnsweredByTheClient(t *testing.T) {
	base := serveRouter(t, askingTools)
	var asked atomic.Int32
	cs := runtimetest.ConnectMCPAt(t, base+"/mcp", answering(&asked, true), "")
	if v := cs.InitializeResult().ProtocolVersion; v != mcp.Version20260728 {
		t.Fatalf("revision %q", v)
	}
	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
		asks int32
	}{
		{"delete", map[string]any{"path": "/tmp/a"}, "deleted /tmp/a", 1},
		{"summarize", map[string]any{"text": "a long story"}, "short (kept)", 2},
		{"connect", map[string]any{"user": "ana"}, "accept", 1},
	} {
		asked.Store(0)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != c.want {
			t.Fatalf("%s: %v %s", c.tool, err, jsonText(res))
		}
		if n := asked.Load(); n != c.asks {
			t.Errorf("%s: the client was asked %d times, want %d", c.tool, n, c.asks)
		}
	}
}

// A user who declines is the branch's to handle; an answer that breaks the form fails the call.
func TestAskDeclinedOrMalformed(t *testing.T) {
	base := serveRouter(t, askingTools)
	ctx := context.Background()
	decline := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}}
	res, err := runtimetest.ConnectMCPAt(t, base+"/mcp", decline, "").
		CallTool(ctx, &sdk.CallToolParams{Name: "delete", Arguments: map[string]any{"path": "/tmp/a"}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "kept /tmp/a (decline)" {
		t.Fatalf("declined: %v %s", err, jsonText(res))
	}
	// The SDK checks its user's answer itself: a client that does not is sent by hand.
	post := poster(t, base+"/mcp")
	const round = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete","arguments":{"path":"/tmp/a"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},` +
		`"inputResponses":{"confirm":%s}}}`
	for answer, want := range map[string]string{
		`{"action":"accept","content":{"confirm":"yes"}}`: `the user's answer does not match the form`,
		`{"action":"maybe"}`:                              `the client answered elicitation/create with action maybe: expected accept, decline or cancel`,
		`[1]`:                                             `the client answered elicitation/create with an array, not an object`,
	} {
		status, body := post(fmt.Sprintf(round, answer), "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "delete")
		if status != 200 || !strings.Contains(body, `"isError":true`) || !strings.Contains(body, want) {
			t.Errorf("answer %s: %d %s, want a failed call saying %q", answer, status, body, want)
		}
	}
}

// A client that cannot answer hears why: on 2026-07-28 one that did not declare the capability
// gets -32021, as the revision says; on an older revision over HTTP a client that takes no
// stream is told what the question needs, and one that answers with an error is quoted.
func TestAskOfAClientThatCannotAnswer(t *testing.T) {
	base := serveRouter(t, askingTools)
	ctx := context.Background()
	_, err := runtimetest.ConnectMCPAt(t, base+"/mcp", nil, "").
		CallTool(ctx, &sdk.CallToolParams{Name: "delete", Arguments: map[string]any{"path": "/tmp/a"}})
	var rpcErr *sdkrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingCapability {
		t.Fatalf("2026-07-28 without elicitation: %v", err)
	}
	post := poster(t, base+"/mcp")
	status, body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete","arguments":{"path":"/tmp/a"}}}`,
		"Mcp-Protocol-Version", "2025-06-18", "Accept", "application/json")
	want := "This tool asks the client (elicitation/create), which needs a client that takes a stream (Accept: text/event-stream), protocol 2026-07-28, or stdio"
	if status != 200 || !strings.Contains(body, want) {
		t.Fatalf("2025-06-18 without a stream: %d %s", status, body)
	}
	res, err := runtimetest.ConnectMCPAt(t, base+"/mcp", nil, mcp.Version20250618).
		CallTool(ctx, &sdk.CallToolParams{Name: "delete", Arguments: map[string]any{"path": "/tmp/a"}})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "The client answered elicitation/create with an error: ") {
		t.Fatalf("2025-06-18, a client without a handler: %v %s", err, jsonText(res))
	}
}

// At an older revision over stateless HTTP the question rides the call's stream and the
// client POSTs its answer, which finds the call by its id: the Go SDK at 2025-06-18 answers
// both tools' questions, and many calls at once each get their own answers.
func TestAskOnTheCallsStreamAtAnOlderRevision(t *testing.T) {
	base := serveRouter(t, askingTools)
	var asked atomic.Int32
	cs := runtimetest.ConnectMCPAt(t, base+"/mcp", answering(&asked, false), mcp.Version20250618)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "summarize", Arguments: map[string]any{"text": "a long story"}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "short (dropped)" || asked.Load() != 2 {
		t.Fatalf("summarize: %v %s, asked %d", err, jsonText(res), asked.Load())
	}
	const calls = 20
	errs := make(chan error, calls)
	for i := range calls {
		go func() {
			path := fmt.Sprintf("/tmp/%d", i)
			c := runtimetest.ConnectMCPAt(t, base+"/mcp", &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					if req.Params.Message != "Delete "+path+"?" {
						return nil, fmt.Errorf("call %d was asked %q", i, req.Params.Message)
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": i%2 == 0}}, nil
				},
			}, mcp.Version20250618)
			res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "delete", Arguments: map[string]any{"path": path}})
			want := "deleted " + path
			if i%2 == 1 {
				want = "kept " + path + " (accept)"
			}
			if err == nil && (res.IsError || res.Content[0].(*sdk.TextContent).Text != want) {
				err = fmt.Errorf("call %d: %s, want %q", i, jsonText(res), want)
			}
			errs <- err
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func jsonText(res *sdk.CallToolResult) string {
	if res == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return fmt.Sprintf("isError=%v %q", res.IsError, b.String())
}

// An ask for roots gets the client's roots; an optional ask of a client that cannot answer goes
// on without an answer (null), at 2026-07-28 and over an older revision's stream alike.
func TestAskForRootsAndAnOptionalAsk(t *testing.T) {
	base := serveRouter(t, askingTools)
	ctx := context.Background()
	for _, version := range []string{"", mcp.Version20250618} {
		client := sdk.NewClient(&sdk.Implementation{Name: "roots", Version: "1"}, nil)
		client.AddRoots(&sdk.Root{URI: "file:///work", Name: "work"})
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "where"})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != `["file:///work","no answer"]` {
			t.Fatalf("revision %q: %v %s", version, err, jsonText(res))
		}
	}
}

// Questions are asked in one round on 2026-07-28: the first answer names all three, and the
// official Go SDK answers them to the end; at 2025-06-18 they are asked one after another.
func TestQuestionsAreAskedInOneRound(t *testing.T) {
	base := serveRouter(t, askingTools)
	post := poster(t, base+"/mcp")
	status, body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"welcome",`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "welcome")
	for _, want := range []string{`"resultType":"input_required"`, `"elicitation/create"`, `"sampling/createMessage"`, `"roots/list"`} {
		if status != 200 || !strings.Contains(body, want) {
			t.Fatalf("first round: %d %s, want %s", status, body, want)
		}
	}
	ctx := context.Background()
	for _, version := range []string{"", mcp.Version20250618} {
		var asked atomic.Int32
		opts := answering(&asked, true)
		opts.Capabilities.RootsV2 = &sdk.RootCapabilities{}
		opts.ElicitationHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ana"}}, nil
		}
		opts.CreateMessageHandler = func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			asked.Add(1)
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "Hello"}}, nil
		}
		client := sdk.NewClient(&sdk.Implementation{Name: "welcome", Version: "1"}, opts)
		client.AddRoots(&sdk.Root{URI: "file:///home/ana", Name: "home"})
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "welcome"})
		_ = cs.Close()
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "Hello, Ana in file:///home/ana" || asked.Load() != 2 {
			t.Fatalf("revision %q: %v %s, asked %d", version, err, jsonText(res), asked.Load())
		}
	}
}

// A question is named by its var, so two asks of one call into the same var are a mistake the
// call reports (on 2026-07-28 the second would get the first one's answer).
func TestTwoAsksIntoOneVarFailTheCall(t *testing.T) {
	base := serveRouter(t, askingTools)
	model := &sdk.ClientOptions{CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "hi"}}, nil
	}}
	for _, version := range []string{"", mcp.Version20250618} {
		res, err := runtimetest.ConnectMCPAt(t, base+"/mcp", model, version).
			CallTool(context.Background(), &sdk.CallToolParams{Name: "twice"})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `this tool asks "answer" twice in one call: give each ask its own into var`) {
			t.Fatalf("revision %q: %v %s", version, err, jsonText(res))
		}
	}
}

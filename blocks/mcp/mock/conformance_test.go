package mock_test

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceClient answers sampling and elicitation as the official suite's
// test client does, and records notifications.
type conformanceClient struct {
	mu       sync.Mutex
	logs     []string
	progress []float64
	tokens   []any
	asked    []*sdk.ElicitParams
}

func (c *conformanceClient) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "test-model", StopReason: "endTurn",
				Content: &sdk.TextContent{Text: "This is a test response from the client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, req.Params)
			c.mu.Unlock()
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"username": "testuser", "email": "test@example.com"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			c.mu.Lock()
			c.logs = append(c.logs, jsonOf(req.Params.Data))
			c.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params.Progress)
			c.tokens = append(c.tokens, req.Params.ProgressToken)
			c.mu.Unlock()
		},
	}
}

// TestTheConformanceFixturesAreExpressibleInSettings serves the suite's
// fixtures from testdata/conformance.yaml alone and checks what each
// scenario checks.
func TestTheConformanceFixturesAreExpressibleInSettings(t *testing.T) {
	s := serve(t, readTestdata(t, "conformance.yaml"))
	cc := &conformanceClient{}
	cs := connect(t, s.url, cc.options())
	ctx := testCtx(t)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

	call := func(t *testing.T, name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		return res
	}
	t.Run("every tool and prompt is listed with a description and every tool with an input schema", func(t *testing.T) {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 14 {
			t.Fatalf("tools/list = %d tools, %v; want 14", len(tools.Tools), err)
		}
		for _, tool := range tools.Tools {
			if tool.Description == "" || tool.InputSchema == nil {
				t.Errorf("tool %s lacks a description or schema", tool.Name)
			}
		}
		prompts, err := cs.ListPrompts(ctx, nil)
		if err != nil || len(prompts.Prompts) != 4 {
			t.Fatalf("prompts/list = %v, %v", prompts, err)
		}
	})
	t.Run("the 2020-12 schema is listed verbatim", func(t *testing.T) {
		tools, _ := cs.ListTools(ctx, nil)
		for _, tool := range tools.Tools {
			if tool.Name != "json_schema_2020_12_tool" {
				continue
			}
			got := jsonOf(tool.InputSchema)
			for _, want := range []string{`"$schema":"https://json-schema.org/draft/2020-12/schema"`, `"$defs":{"address":{"$anchor":"addressDef"`,
				`"additionalProperties":false`, `"allOf":[{"anyOf":[`, `"if":{`, `"then":{`, `"else":{`} {
				if !strings.Contains(got, want) {
					t.Errorf("inputSchema %s lacks %s", got, want)
				}
			}
		}
	})
	t.Run("a simple text tool answers without arguments", func(t *testing.T) {
		if got := texts(call(t, "test_simple_text", nil)); len(got) != 1 || got[0] == "" {
			t.Fatalf("content = %v", got)
		}
	})
	t.Run("image, audio and embedded resource items keep their data and types", func(t *testing.T) {
		img := call(t, "test_image_content", nil).Content[0].(*sdk.ImageContent)
		aud := call(t, "test_audio_content", nil).Content[0].(*sdk.AudioContent)
		emb := call(t, "test_embedded_resource", nil).Content[0].(*sdk.EmbeddedResource)
		if string(img.Data) != string(png) || img.MIMEType != "image/png" || aud.MIMEType != "audio/wav" || len(aud.Data) == 0 {
			t.Errorf("image %s / audio %s", jsonOf(img), jsonOf(aud))
		}
		if emb.Resource.URI != "test://embedded-resource" || emb.Resource.MIMEType != "text/plain" || emb.Resource.Text == "" {
			t.Errorf("embedded = %s", jsonOf(emb))
		}
		mixed := call(t, "test_multiple_content_types", nil).Content
		if len(mixed) != 3 {
			t.Fatalf("mixed = %s", jsonOf(mixed))
		}
	})
	t.Run("the logging tool sends three messages at the level set", func(t *testing.T) {
		if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		if got := texts(call(t, "test_tool_with_logging", nil)); got[0] != "Tool with logging executed successfully" {
			t.Fatalf("content = %v", got)
		}
		waitFor(t, func() bool { cc.mu.Lock(); defer cc.mu.Unlock(); return len(cc.logs) >= 3 })
	})
	t.Run("the progress tool echoes the token with rising progress", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_tool_with_progress", Meta: sdk.Meta{"progressToken": "tok-1"}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", res, err)
		}
		waitFor(t, func() bool { cc.mu.Lock(); defer cc.mu.Unlock(); return len(cc.progress) >= 3 })
		cc.mu.Lock()
		defer cc.mu.Unlock()
		for i := range cc.progress {
			if cc.tokens[i] != "tok-1" || i > 0 && cc.progress[i] < cc.progress[i-1] {
				t.Fatalf("progress %v with tokens %v", cc.progress, cc.tokens)
			}
		}
	})
	t.Run("the error tool fails as a result, not a protocol error", func(t *testing.T) {
		res := call(t, "test_error_handling", nil)
		if !res.IsError || texts(res)[0] == "" {
			t.Fatalf("result = %s", jsonOf(res))
		}
	})
	t.Run("sampling asks the client and uses its answer", func(t *testing.T) {
		got := texts(call(t, "test_sampling", map[string]any{"prompt": "Say hi"}))
		if got[0] != "LLM response: This is a test response from the client" {
			t.Fatalf("content = %v", got)
		}
	})
	t.Run("elicitation asks the user and reports the answer", func(t *testing.T) {
		got := texts(call(t, "test_elicitation", map[string]any{"message": "Who are you?"}))
		want := `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`
		if got[0] != want {
			t.Fatalf("content = %v, want %s", got, want)
		}
	})
	t.Run("the SEP-1034 and SEP-1330 schemas reach the client exactly", func(t *testing.T) {
		call(t, "test_elicitation_sep1034_defaults", nil)
		call(t, "test_elicitation_sep1330_enums", nil)
		cc.mu.Lock()
		defer cc.mu.Unlock()
		defaults := jsonOf(cc.asked[len(cc.asked)-2].RequestedSchema)
		enums := jsonOf(cc.asked[len(cc.asked)-1].RequestedSchema)
		for _, want := range []string{`"age":{"default":30,"type":"integer"}`, `"score":{"default":95.5,"type":"number"}`, `"verified":{"default":true,"type":"boolean"}`, `"required":[]`} {
			if !strings.Contains(defaults, want) {
				t.Errorf("defaults schema %s lacks %s", defaults, want)
			}
		}
		for _, want := range []string{`"enumNames":["Option One","Option Two","Option Three"]`, `"anyOf":[{"const":"value1","title":"First Choice"}`} {
			if !strings.Contains(enums, want) {
				t.Errorf("enums schema %s lacks %s", enums, want)
			}
		}
	})
	t.Run("resources read as text, blob and through the template", func(t *testing.T) {
		text, err1 := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-text"})
		blob, err2 := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-binary"})
		tmpl, err3 := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://template/123/data"})
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatal(err1, err2, err3)
		}
		if text.Contents[0].Text == "" || string(blob.Contents[0].Blob) != string(png) || blob.Contents[0].MIMEType != "image/png" {
			t.Errorf("static = %s / %s", jsonOf(text), jsonOf(blob))
		}
		if c := tmpl.Contents[0]; c.URI != "test://template/123/data" || c.Text != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
			t.Errorf("template read = %s", jsonOf(tmpl))
		}
	})
	t.Run("the watched resource can be subscribed and unsubscribed", func(t *testing.T) {
		if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Fatal(err)
		}
		if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("prompts fill arguments and carry resource and image content", func(t *testing.T) {
		args, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "testValue1", "arg2": "testValue2"}})
		if err != nil || args.Messages[0].Content.(*sdk.TextContent).Text != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
			t.Fatalf("with arguments = %s, %v", jsonOf(args), err)
		}
		emb, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": "test://example-resource"}})
		if err != nil || emb.Messages[0].Content.(*sdk.EmbeddedResource).Resource.URI != "test://example-resource" {
			t.Fatalf("embedded = %s, %v", jsonOf(emb), err)
		}
		img, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_image"})
		if err != nil || img.Messages[0].Content.(*sdk.ImageContent).MIMEType != "image/png" {
			t.Fatalf("image = %s, %v", jsonOf(img), err)
		}
	})
	t.Run("completion answers with no suggestions", func(t *testing.T) {
		res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: sdk.CompleteParamsArgument{Name: "arg1", Value: "test"}})
		if err != nil || len(res.Completion.Values) != 0 {
			t.Fatalf("complete = %v, %v", res, err)
		}
	})
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

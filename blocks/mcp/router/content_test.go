package router_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// richTools answer content items from their branches: a list, an object with structured
// content, and a list holding something MCP has not.
const richTools = `        tools:
          - name: chart
            description: a chart and where to read more
            result: content
            process:
              - type: set-payload
                settings:
                  value: >-
                    [{"type": "text", "text": "Sales for " + body.city},
                     {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                     {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                     {"type": "resource_link", "uri": "docs://sales", "name": "sales"},
                     {"type": "resource", "resource": {"uri": "docs://notes", "mimeType": "text/plain", "text": "up 4%"}}]
          - name: total
            description: a total, said and structured
            result: content
            outputSchema: '{"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}'
            process:
              - type: set-payload
                settings: { value: '{"content": [{"type": "text", "text": "12.5"}], "structuredContent": {"total": 12.5}}' }
          - name: odd
            description: answers what MCP has not
            result: content
            process:
              - type: set-payload
                settings: { value: '[{"type": "video", "url": "x"}]' }
`

// A branch answers content items as MCP writes them: every kind reaches the official client
// whole, structured content beside them is checked against the outputSchema, and an item MCP
// has not is a failed call that says which.
func TestABranchAnswersContentItems(t *testing.T) {
	base := serveRouter(t, richTools)
	cs := runtimetest.ConnectMCP(t, base+"/mcp", nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "chart", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil || res.IsError || len(res.Content) != 5 {
		t.Fatalf("chart: %v %+v", err, res)
	}
	kinds := []string{}
	for _, c := range res.Content {
		b, _ := json.Marshal(c)
		kinds = append(kinds, string(b))
	}
	got := strings.Join(kinds, "\n")
	for _, want := range []string{`"text":"Sales for Oslo"`, `"type":"image"`, `"data":"iVBORw0KGgo="`, `"mimeType":"audio/wav"`,
		`"type":"resource_link"`, `"uri":"docs://sales"`, `"type":"resource"`, `"text":"up 4%"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the content lacks %s:\n%s", want, got)
		}
	}
	total, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "total"})
	if sc, _ := json.Marshal(total.StructuredContent); err != nil || total.IsError || string(sc) != `{"total":12.5}` {
		t.Fatalf("total: %v %+v %s", err, total, sc)
	}
	odd, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "odd"})
	if err != nil || !odd.IsError || !strings.Contains(odd.Content[0].(*sdk.TextContent).Text, `item 0 has type "video", which MCP does not`) {
		t.Fatalf("odd: %v %+v", err, odd)
	}
}

// backedByBranches are a resource template and a prompt whose text a branch makes.
const backedByBranches = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        resources:
          - uriTemplate: issues://{id}
            name: issue
            mimeType: application/json
            process:
              - type: switch
                cases:
                  - when: body.id == "0"
                    process:
                      - type: fail
                        settings: { message: 'no issue {{ body.id }}', kind: not found }
                default:
                  - type: set-payload
                    settings: { value: '{"id": body.id, "title": "Issue " + body.id}' }
        prompts:
          - name: triage
            arguments: [ { name: id, required: true } ]
            process:
              - type: set-payload
                settings: { value: '[{"role": "user", "text": "Triage issue " + body.id}, {"role": "assistant", "text": "On it."}]' }
`

// A resource template and a prompt backed by a branch: reading issues://7 runs it with the URI's
// parts, its body the text; a failure of kind not found is the protocol's resource not found; a
// prompt's branch answers its messages.
func TestResourcesAndPromptsBackedByABranch(t *testing.T) {
	_, base := runtimetest.Serve(t, fmt.Sprintf(backedByBranches, 0), "api", &runtimetest.Buffer{})
	cs := runtimetest.ConnectMCP(t, base+"/mcp", nil)
	ctx := context.Background()
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "issues://7"})
	if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != `{"id":"7","title":"Issue 7"}` || r.Contents[0].MIMEType != "application/json" {
		t.Fatalf("issues://7: %v %+v", err, r)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "issues://0"}); err == nil || !strings.Contains(strings.ToLower(err.Error()), "resource not found") {
		t.Fatalf("issues://0: %v", err)
	}
	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "triage", Arguments: map[string]string{"id": "9"}})
	if err != nil || len(p.Messages) != 2 || p.Messages[0].Content.(*sdk.TextContent).Text != "Triage issue 9" || p.Messages[1].Role != "assistant" {
		t.Fatalf("triage: %v %+v", err, p)
	}
}

// richReads make a binary resource and prompts with content items from blocks, and get them wrong.
const richReads = `        resources:
          - uri: img://dot
            name: dot
            mimeType: image/png
            binary: true
            process:
              - { type: set-payload, settings: { value: '"iVBORw0KGgo="' } }
          - uri: img://broken
            name: broken
            mimeType: image/png
            binary: true
            process:
              - { type: set-payload, settings: { value: '"not base64!"' } }
        prompts:
          - name: look
            process:
              - type: set-payload
                settings: { value: '[{"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}, {"role": "assistant", "text": "I see a dot."}]' }
          - name: odd
            process:
              - type: set-payload
                settings: { value: '[{"role": "user", "content": {"type": "video"}}]' }
`

// A binary resource is read as the blob its text encodes, and a prompt's messages may be
// content items; text that is not base64, or an item MCP has not, is an error naming it.
func TestBinaryResourcesAndPromptContentFromBranches(t *testing.T) {
	cs := runtimetest.ConnectMCP(t, serveRouter(t, richReads)+"/mcp", nil)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "img://dot"})
	if err != nil || len(res.Contents) != 1 || string(res.Contents[0].Blob) != "\x89PNG\r\n\x1a\n" || res.Contents[0].MIMEType != "image/png" {
		t.Fatalf("binary read: %v %+v", err, res)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "img://broken"}); err == nil || !strings.Contains(err.Error(), "resource img://broken is binary, and its text is not base64") {
		t.Fatalf("broken binary: %v", err)
	}
	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "look"})
	if err != nil || len(p.Messages) != 2 || p.Messages[1].Content.(*sdk.TextContent).Text != "I see a dot." {
		t.Fatalf("prompt: %v %+v", err, p)
	}
	if img, ok := p.Messages[0].Content.(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("prompt image: %+v", p.Messages[0].Content)
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "odd"}); err == nil || !strings.Contains(err.Error(), `message 0 whose content item has type "video"`) {
		t.Fatalf("odd prompt: %v", err)
	}
}

package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestContentJSON(t *testing.T) {
	size := int64(12)
	prio := 0.5
	tests := []struct {
		name    string
		content Content
		want    string
	}{
		{"an empty text block still carries its text", TextContent(""), `{"type":"text","text":""}`},
		{"a text block carries annotations and meta", Content{Type: ContentText, Text: "hi",
			Annotations: &Annotations{Audience: []string{"user"}, Priority: &prio}, Meta: map[string]any{"k": "v"}},
			`{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}}`},
		{"an image block is base64", ImageContent([]byte("png!"), "image/png"), `{"type":"image","data":"cG5nIQ==","mimeType":"image/png"}`},
		{"an audio block is base64", AudioContent([]byte{1, 2}, "audio/wav"), `{"type":"audio","data":"AQI=","mimeType":"audio/wav"}`},
		{"an embedded text resource", EmbeddedResource(ResourceContents{URI: "docs://a", MimeType: "text/plain", Text: ""}),
			`{"type":"resource","resource":{"uri":"docs://a","mimeType":"text/plain","text":""}}`},
		{"an embedded blob resource", EmbeddedResource(ResourceContents{URI: "img://a", Blob: []byte("x")}),
			`{"type":"resource","resource":{"uri":"img://a","blob":"eA=="}}`},
		{"an empty blob stays a blob", EmbeddedResource(ResourceContents{URI: "img://a", Blob: []byte{}}),
			`{"type":"resource","resource":{"uri":"img://a","blob":""}}`},
		{"a resource link is flat", ResourceLink(Resource{URI: "docs://a", Name: "a", MimeType: "text/plain", Size: &size}),
			`{"type":"resource_link","uri":"docs://a","name":"a","mimeType":"text/plain","size":12}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.content)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v\nwant      %s", b, err, tt.want)
			}
			var back Content
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.content) {
				t.Fatalf("round trip = %+v, want %+v", back, tt.content)
			}
		})
	}
	for _, bad := range []Content{{Type: "video"}, {Type: ContentResource}, {Type: ContentResourceLink}} {
		t.Run("a "+bad.Type+" block without what it needs does not encode", func(t *testing.T) {
			if _, err := json.Marshal(bad); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestResultsNeverSendNull(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"a tool without a schema lists the default one", Tool{Name: "t"}, `{"name":"t","inputSchema":{"type":"object"}}`},
		{"a schema keeps its key order", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`)},
			`{"name":"t","inputSchema":{"type":"object","properties":{"z":{},"a":{}}},"outputSchema":{"type":"object"}}`},
		{"unset hints stay unset", Tool{Name: "t", Annotations: &ToolAnnotations{DestructiveHint: new(bool)}},
			`{"name":"t","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`},
		{"a result without content has an empty list", CallToolResult{}, `{"content":[]}`},
		{"a pointer result without content has an empty list", &CallToolResult{IsError: true}, `{"content":[],"isError":true}`},
		{"a prompt result without messages has an empty list", GetPromptResult{}, `{"messages":[]}`},
		{"a tool error is a readable isError result", ToolError("quantity must be between 1 and 500; got 0"),
			`{"content":[{"type":"text","text":"quantity must be between 1 and 500; got 0"}],"isError":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v\nwant      %s", b, err, tt.want)
			}
		})
	}
}

func TestDowngrade(t *testing.T) {
	link := ResourceLink(Resource{URI: "docs://a", Name: "a", Title: "Doc A"})
	audio := AudioContent([]byte{1}, "audio/wav")
	text := TextContent("x")
	tests := []struct {
		name    string
		version string
		in      []Content
		want    []Content
		changed bool
	}{
		{"an unknown version keeps every block", "", []Content{link, audio}, []Content{link, audio}, false},
		{"2025-06-18 keeps resource links", Version20250618, []Content{link}, []Content{link}, false},
		{"2025-03-26 gets a resource link as text", Version20250326, []Content{text, link, audio},
			[]Content{text, TextContent("Resource Doc A: docs://a"), audio}, true},
		{"2024-11-05 gets audio as text", Version20241105, []Content{audio},
			[]Content{TextContent("[audio audio/wav not shown: the client's protocol version has no audio]")}, true},
		{"plain text is never copied", Version20241105, []Content{text}, []Content{text}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]Content(nil), tt.in...)
			got, changed := downgrade(tt.in, tt.version)
			if changed != tt.changed || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("downgrade = %+v, %v; want %+v, %v", got, changed, tt.want, tt.changed)
			}
			if !reflect.DeepEqual(tt.in, orig) {
				t.Fatal("downgrade changed its input")
			}
		})
	}
	t.Run("a prompt for an old client gets its link as text without touching the original", func(t *testing.T) {
		in := &GetPromptResult{Messages: []PromptMessage{{Role: "user", Content: link}}}
		got := downgradePrompt(in, Version20250326)
		if got.Messages[0].Content.Type != ContentText || in.Messages[0].Content.Type != ContentResourceLink {
			t.Fatalf("got %+v, original %+v", got.Messages[0], in.Messages[0])
		}
	})
}

func TestPlainResultEncodingMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name  string
		res   CallToolResult
		plain bool
	}{
		{"no content", CallToolResult{}, true},
		{"one text block", CallToolResult{Content: []Content{TextContent("sunny")}}, true},
		{"an error with escapes", CallToolResult{Content: []Content{TextContent("a\"b\n\x01 \u2028 \xff"), TextContent("")}, IsError: true}, true},
		{"structured content takes the general path", CallToolResult{Content: []Content{TextContent("x")}, StructuredContent: map[string]int{"a": 1}}, false},
		{"an image takes the general path", CallToolResult{Content: []Content{ImageContent([]byte{1}, "image/png")}}, false},
		{"annotations take the general path", CallToolResult{Content: []Content{{Type: ContentText, Text: "x", Annotations: &Annotations{}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.res.appendPlain(nil)
			if ok != tt.plain {
				t.Fatalf("appendPlain took the plain path = %v, want %v", ok, tt.plain)
			}
			if !ok {
				return
			}
			want, err := json.Marshal(tt.res)
			if err != nil || string(got) != string(want) {
				t.Fatalf("appendPlain = %s\nencoding/json = %s", got, want)
			}
		})
	}
}

package console_test

import (
	"strings"
	"testing"
	"time"
)

// A call asking for its progress is answered as a stream: the progress the server reports as it
// comes, then the answer /api/call gives otherwise.
func TestACallWithProgressStreamsItsProgressThenTheAnswer(t *testing.T) {
	f := newFixture(t)
	save := func(tools ...any) {
		var res struct{ IsError bool }
		f.must(200, "POST", "/api/call", map[string]any{"tool": "save_server", "arguments": map[string]any{
			"name": "Slow", "kind": "mcp", "port": 0, "mcp": map[string]any{"tools": tools}}}, &res)
		if res.IsError {
			t.Fatalf("save_server: %+v", res)
		}
	}
	save(map[string]any{"name": "quick", "result": "hi"})
	f.must(200, "POST", "/api/call", map[string]any{"tool": "start_server", "arguments": map[string]string{"name": "Slow"}}, nil)
	// Added while it runs, as the console's forms do.
	save(map[string]any{"name": "quick", "result": "hi"}, map[string]any{"name": "report", "result": "report ready", "steps": []any{
		map[string]any{"progress": 1, "total": 2, "message": "collecting"}, map[string]any{"delayMs": 50},
		map[string]any{"progress": 2, "total": 2, "message": "writing"}}})
	// The running server takes the edit within a second of the file being written.
	var code int
	var text string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var body []byte
		code, body = f.do("POST", "/api/call", map[string]any{"tool": "call_server", "progress": true,
			"arguments": map[string]any{"server": "Slow", "tool": "report"}})
		if text = string(body); !strings.Contains(text, "Unknown tool") || time.Now().After(deadline) {
			break
		}
	}
	one := strings.Index(text, `"message":"collecting"`)
	two := strings.Index(text, `"message":"writing"`)
	answer := strings.Index(text, "event: result")
	if code != 200 || one < 0 || two < one || answer < two || !strings.Contains(text[answer:], "report ready") {
		t.Fatalf("%d\n%s", code, text)
	}
}

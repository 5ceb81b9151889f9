package mock

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/mcp"
)

// FuzzLoad feeds settings text to the loader, and calls whatever it built
// with fuzzed arguments: no input may panic, and a built server must answer.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		"tools: [ { name: a, result: '{\"x\": {{args.x}}}', inputSchema: '{\"type\":\"object\"}' } ]",
		"tools: [ { name: a, content: [ { text: hi }, { image: aGk=, mimeType: image/png } ], steps: [ { log: x }, { delayMs: 0 } ] } ]",
		"resources: [ { uri: 'a://{id}', name: r, text: '{{params.id}}' } ]",
		"prompts: [ { name: p, arguments: [ { name: a } ], messages: [ { text: '{{args.a}}' } ] } ]",
		"tools: [ { name: a, result: x, inputSchema: { type: object, properties: { n: { type: integer, default: 3 } } } } ]",
		"variables: { a: b }\ntools: [ { name: a, result: '{{a}} {{$randomInt 1 2 as n}} {{n}}' } ]",
		"tools: &t [ { name: a, result: x } ]\nprompts: *t",
		"tools: [ { name: a, result: x, steps: [ { elicit: hi, schema: { type: object }, as: r }, { sample: '{{args.r}}' } ] } ]",
		"resources: [ { uri: 'a://b', name: b, blob: aGk= } ]\npath: /x\nseed: 3",
	}
	for _, s := range seeds {
		f.Add(s, `{"x": 1, "a": "{{a}}"}`)
	}
	f.Fuzz(func(t *testing.T, text, args string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(text), &doc) != nil || len(doc.Content) == 0 {
			return
		}
		v, ds := load(doc.Content[0], at)
		if v == nil {
			if len(ds) == 0 {
				t.Fatal("nothing built and no reason given")
			}
			return
		}
		if !json.Valid([]byte(args)) {
			args = "{}"
		}
		p := &provider{}
		p.cat.Store(v.cat)
		// Delays may be long: a call only has to end well, or by its deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
		defer cancel()
		for _, tool := range v.cat.toolList {
			if len(tool.Name) == 0 {
				t.Fatal("a tool without a name was built")
			}
			_, err := p.CallTool(ctx, &mcp.RequestContext{}, tool.Name, json.RawMessage(args))
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("tool %s: %v", tool.Name, err)
			}
		}
	})
}

package agenttools

import (
	"encoding/json"
	"reflect"
	"testing"
)

// What an agent sends as a server's mcp section reads back from the written file as the same
// JSON value: the YAML in between loses and adds nothing.
func FuzzSavedFileReadsBackAsSent(f *testing.F) {
	f.Add(`{"tools": [{"name": "a", "result": "{\"x\": 1}", "delayMs": 5}], "variables": {"v": "3004"}}`)
	f.Add(`{"a": ["", null, true, 1.5, -0, 1e3, "yes", "no", "~", "null", "0x1F", "2001-12-14", "a: b", "- x", "#c", "\n x\n"]}`)
	f.Add(`{"k y": {"": "\t\u0000\u2028", "é": "\"'"}}`)
	f.Fuzz(func(t *testing.T, sent string) {
		var want map[string]any
		if json.Unmarshal([]byte(sent), &want) != nil {
			return
		}
		n, err := jsonNode(json.RawMessage(sent))
		if err != nil {
			return // too deep: refused before anything is written
		}
		text, err := serverText(&saving{saveArgs: saveArgs{Name: "A", Kind: "mcp"}, mcp: n}, 3004)
		if err != nil {
			t.Fatalf("cannot write %s: %v", sent, err)
		}
		fields, err := yamlFields("A.yaml", text)
		if err != nil {
			t.Fatalf("cannot read back what was written for %s:\n%s\n%v", sent, text, err)
		}
		var got struct {
			MCP map[string]any `json:"mcp"`
		}
		if err := json.Unmarshal(fields, &got); err != nil {
			t.Fatalf("%s: %v", fields, err)
		}
		if !reflect.DeepEqual(got.MCP, want) {
			t.Fatalf("sent %s\nwrote:\n%s\nread back %s", sent, text, fields)
		}
	})
}

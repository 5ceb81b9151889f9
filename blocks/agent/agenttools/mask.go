package agenttools

import (
	"encoding/json"
	"strings"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
)

// What an agent reads never holds the value of a secret variable (workspace.yaml's secrets):
// servers answer with it as usual, the user sees it in the console, but every tool's answer to
// an agent has it replaced by ***, in each form it can take there: as written, inside a JSON
// string (a message in get_traffic), and inside JSON held in a JSON string (call_server's
// answer, a JSON text of the server's JSON).

// masked is the mark a secret value is replaced with.
const masked = "***"

// secretMask is what replaces the workspace's secret values, nil when it has none.
func (t *Tools) secretMask() *strings.Replacer {
	settings, ds := workspace.ReadSettings(t.host.Workspace())
	if len(ds) > 0 {
		return nil
	}
	var pairs []string
	for _, v := range settings.SecretValues() {
		for _, form := range []string{v, jsonInner(v), jsonInner(jsonInner(v))} {
			pairs = append(pairs, form, masked)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// jsonInner is s as it is written inside a JSON string, without the quotes.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// mask replaces the secret values in every text and the structured content of res.
func mask(r *strings.Replacer, res *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil || res == nil {
		return res
	}
	out := *res
	out.Content = make([]mcp.Content, len(res.Content))
	for i, c := range res.Content {
		c.Text = r.Replace(c.Text)
		out.Content[i] = c
	}
	if res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			out.StructuredContent = json.RawMessage(r.Replace(string(raw)))
		}
	}
	return &out
}

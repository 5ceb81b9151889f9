package aiagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

// tool is one tool the model may call.
type tool struct {
	name, description string
	schema            json.RawMessage // sent to the model; {"type":"object"} when none was written
	input             *schema.Schema
	branch            runtime.Branch
}

// toolName is what every provider takes: OpenAI refuses dots, Anthropic more than 64 characters.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func buildTools(b *runtime.Build, s *Settings, byName map[string]*tool) []*tool {
	var out []*tool
	for i := range s.Tools {
		ts := &s.Tools[i]
		mcpOnly(b, ts)
		if ts.InputSchema.Err != nil {
			b.Errorf(&ts.InputSchema, "inputSchema: %v", ts.InputSchema.Err)
		}
		switch {
		case !toolName.MatchString(ts.Name):
			b.Errorf(&ts.Name, "tool name %q: a model takes 1 to 64 of A-Z a-z 0-9 _ -", ts.Name)
		case byName[ts.Name] != nil:
			b.Errorf(&ts.Name, "tool %q is declared twice", ts.Name)
		}
		t := &tool{name: ts.Name, description: ts.Description, schema: json.RawMessage(`{"type":"object"}`),
			input: ts.InputSchema.Schema, branch: ts.Process}
		if ts.InputSchema.Schema != nil {
			t.schema = ts.InputSchema.Raw()
		}
		byName[ts.Name] = t
		out = append(out, t)
	}
	return out
}

// mcpOnly refuses the keys a router tool has and a model cannot use.
func mcpOnly(b *runtime.Build, ts *ToolSettings) {
	const why = "is MCP-only metadata: a model sees a tool's name, description and inputSchema only"
	if ts.Title != "" {
		b.Errorf(&ts.Title, "title %s", why)
	}
	if ts.Annotations != nil {
		b.Errorf(&ts.Annotations, "annotations %s", why)
	}
	if ts.OutputSchema.Set() {
		b.Errorf(&ts.OutputSchema, "outputSchema %s", why)
	}
}

// call runs a tool the model called and returns what the model reads: the branch's final body
// (a string as it is, else JSON), or the failure, with isError.
func (blk *Block) call(ctx context.Context, m *runtime.Message, c toolCall) (string, bool) {
	t := blk.byName[c.Name]
	if t == nil {
		return fmt.Sprintf("there is no tool %q", c.Name), true
	}
	args := []byte(c.Args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	body, err := jsonv.Decode(args)
	if err != nil {
		return fmt.Sprintf("the arguments of %s are not JSON: %v", c.Name, err), true
	}
	if t.input != nil {
		if err := t.input.ValidateValue(body); err != nil {
			return fmt.Sprintf("invalid arguments for %s: %v", c.Name, err), true
		}
	}
	ctx, cancel := context.WithTimeout(ctx, blk.toolWait)
	defer cancel()
	out, err := t.branch.Process(ctx, m.Derive(body))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Sprintf("%s did not answer within %s", c.Name, blk.toolWait), true
		}
		if e := runtime.ErrorOf(err); e.Kind != runtime.KindInternal {
			return e.Msg, true
		}
		return fmt.Sprintf("%s failed", c.Name), true
	}
	return resultText(out)
}

// resultText is a branch's final body as the model reads it.
func resultText(m *runtime.Message) (string, bool) {
	text, err := m.Text()
	if err != nil {
		return "the tool's result could not be read", true
	}
	return text, false
}

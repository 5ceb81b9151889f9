package agenttools

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime"
)

func TestDefinitionsListTheNineToolsWithSchemasThatCompile(t *testing.T) {
	want := []string{GetWorkspace, ListServers, GetServer, SaveServer, DeleteServer, StartServer, StopServer, GetTraffic, CallServer}
	tools := Definitions()
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("%s: description %q is too short for an agent to act on", tool.Name, tool.Description)
		}
		if _, err := schema.Compile(tool.InputSchema); err != nil {
			t.Errorf("%s: input schema does not compile: %v", tool.Name, err)
		}
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint == nil {
			t.Errorf("%s: no behaviour hints", tool.Name)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

func TestEveryArgumentIsDescribed(t *testing.T) {
	for _, tool := range Definitions() {
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %q has no description", tool.Name, name)
			}
		}
	}
}

// The mcp argument of save_server is the saved file's mcp section: every key of the
// registered mcp-mock settings, and no other.
func TestSaveServerDescribesEveryMockSetting(t *testing.T) {
	var schema struct {
		Properties struct {
			MCP struct {
				Ref string `json:"$ref"`
			} `json:"mcp"`
		} `json:"properties"`
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(tool(t, SaveServer).InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	def, ok := schema.Defs[strings.TrimPrefix(schema.Properties.MCP.Ref, "#/$defs/")]
	if !ok {
		t.Fatalf("mcp refers to %q, which $defs lacks", schema.Properties.MCP.Ref)
	}
	var spec *runtime.SettingsSpec
	for _, b := range runtime.BlockTypes() {
		if b.Type == "mcp-mock" {
			spec = b.Settings()
		}
	}
	if spec == nil {
		t.Fatal("mcp-mock is not registered")
	}
	var want []string
	for _, f := range spec.Fields {
		want = append(want, f.Key)
	}
	got := slices.Sorted(maps.Keys(def.Properties))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("mcp keys %v, want the mcp-mock settings' %v", got, want)
	}
}

func TestArgumentsAreCheckedNamingTheField(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{GetServer, `{}`, `"name"`},
		{GetServer, `{"name": 3}`, `name`},
		{GetServer, `{"name": "a", "extra": 1}`, `extra`},
		{SaveServer, `{"name": "a", "kind": "mcp"}`, `"mcp"`},
		{SaveServer, `{"name": "a", "kind": "http", "mcp": {}}`, `"http"`},
		{SaveServer, `{"name": "a", "kind": "soap", "mcp": {}}`, `kind`},
		{SaveServer, `{"name": "a", "kind": "mcp", "port": 70000, "mcp": {}}`, `port`},
		{GetTraffic, `{"limit": 0}`, `limit`},
		{GetTraffic, `{"limit": 1001}`, `limit`},
		{GetWorkspace, `{"x": 1}`, `x`},
	} {
		err := definitionOf(c.tool).schema.Validate(json.RawMessage(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one naming %s", c.tool, c.args, err, c.want)
		}
	}
	// save_server's mcp section is left to the workspace's checks, which give the file's messages.
	if err := definitionOf(SaveServer).schema.Validate(json.RawMessage(`{"name": "a", "kind": "mcp", "mcp": {"tools": 3}}`)); err != nil {
		t.Errorf("save_server's argument check looked into mcp: %v", err)
	}
}

func TestInstructionsSayWhereToStartAndWhereCredentialsGo(t *testing.T) {
	for _, want := range []string{"get_workspace", "approve", "{{variables}}", "never"} {
		if !strings.Contains(Instructions, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
}

func tool(t *testing.T, name string) mcp.Tool {
	t.Helper()
	for _, tool := range Definitions() {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return mcp.Tool{}
}

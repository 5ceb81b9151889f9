package console_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// variablesView is /api/variables' body.
type variablesView struct {
	Variables    map[string]string            `json:"variables,omitempty"`
	Environments map[string]map[string]string `json:"environments,omitempty"`
	Environment  string                       `json:"environment,omitempty"`
}

// The Variables form reads workspace.yaml as values and writes them back: an environment added
// (even without values yet) and made active is the workspace's, as get_workspace reports.
func TestVariablesAndEnvironmentsAreEditedAsAForm(t *testing.T) {
	f := newFixture(t)
	var got variablesView
	f.must(200, "GET", "/api/variables", nil, &got)
	if len(got.Variables) != 0 || len(got.Environments) != 0 || got.Environment != "" {
		t.Fatalf("a workspace without workspace.yaml has %+v", got)
	}
	want := variablesView{
		Variables:    map[string]string{"city": "Lisbon"},
		Environments: map[string]map[string]string{"staging": {"city": "Porto"}, "empty": nil},
		Environment:  "staging",
	}
	f.must(200, "POST", "/api/variables", want, nil)
	f.must(200, "GET", "/api/variables", nil, &got)
	if got.Variables["city"] != "Lisbon" || got.Environments["staging"]["city"] != "Porto" || got.Environment != "staging" {
		t.Fatalf("read back %+v", got)
	}
	if _, kept := got.Environments["empty"]; !kept {
		t.Fatalf("the environment without values is lost: %+v", got)
	}
	data, _ := os.ReadFile(filepath.Join(f.ws, "workspace.yaml"))
	if !strings.HasPrefix(string(data), "# Written by the octo console") || !strings.Contains(string(data), "environment: staging") {
		t.Fatalf("workspace.yaml:\n%s", data)
	}
	var res struct{ Text string }
	f.must(200, "POST", "/api/call", map[string]any{"tool": "get_workspace"}, &res)
	var ws struct{ Environment string }
	if err := json.Unmarshal([]byte(res.Text), &ws); err != nil || ws.Environment != "staging" {
		t.Fatalf("get_workspace %s (%v)", res.Text, err)
	}

	// Values YAML would read otherwise come back as written.
	odd := map[string]string{"colon": "a: b # not a comment", "tag": "{{other}}", "lines": "one\ntwo", "yes": "yes", "num": "007", "empty": ""}
	f.must(200, "POST", "/api/variables", variablesView{Variables: odd}, nil)
	got = variablesView{} // decoding would merge into the maps read before
	f.must(200, "GET", "/api/variables", nil, &got)
	if !maps.Equal(got.Variables, odd) {
		t.Fatalf("read back %q, want %q", got.Variables, odd)
	}
}

// A form the workspace could not use is refused and leaves workspace.yaml as it was; a file
// the form cannot read is answered with its problems, for the YAML view.
func TestABadVariablesFormIsRefused(t *testing.T) {
	f := newFixture(t)
	f.must(200, "POST", "/api/variables", variablesView{Variables: map[string]string{"city": "Lisbon"}}, nil)
	data, _ := os.ReadFile(filepath.Join(f.ws, "workspace.yaml"))
	var p problemBody
	f.must(422, "POST", "/api/variables", variablesView{Environment: "prod"}, &p)
	if len(p.Problems) == 0 || !strings.Contains(p.Problems[0].Message, "prod") {
		t.Fatalf("problems %+v", p)
	}
	f.must(400, "POST", "/api/variables", map[string]any{"variables": map[string]any{"n": []int{1}}}, nil)
	f.must(400, "POST", "/api/variables", map[string]any{"vars": map[string]string{}}, nil)
	f.must(400, "POST", "/api/variables", variablesView{Variables: map[string]string{" ": "x"}}, nil)
	f.must(400, "POST", "/api/variables", variablesView{Environments: map[string]map[string]string{"": {}}}, nil)
	f.must(400, "POST", "/api/variables", variablesView{Environments: map[string]map[string]string{"qa": {"": "x"}}}, nil)
	after, _ := os.ReadFile(filepath.Join(f.ws, "workspace.yaml"))
	if string(after) != string(data) {
		t.Fatalf("a refused form changed workspace.yaml:\n%s", after)
	}

	if err := os.WriteFile(filepath.Join(f.ws, "workspace.yaml"), []byte("variables: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p = problemBody{}
	f.must(422, "GET", "/api/variables", nil, &p)
	if len(p.Problems) == 0 || p.Problems[0].Line == 0 {
		t.Fatalf("problems %+v", p)
	}
}

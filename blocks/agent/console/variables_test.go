package console_test

import (
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

// The Variables form reads workspace.yaml as values and writes them back checked: an
// environment added and made active is what get_workspace then reports.
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

	// An active environment that does not exist is refused, and the file stays.
	var p problemBody
	f.must(422, "POST", "/api/variables", variablesView{Environment: "prod"}, &p)
	if len(p.Problems) == 0 || !strings.Contains(p.Problems[0].Message, "prod") {
		t.Fatalf("problems %+v", p)
	}
	f.must(400, "POST", "/api/variables", map[string]any{"variables": map[string]any{"n": []int{1}}}, nil)
	f.must(400, "POST", "/api/variables", map[string]any{"vars": map[string]string{}}, nil)
	after, _ := os.ReadFile(filepath.Join(f.ws, "workspace.yaml"))
	if string(after) != string(data) {
		t.Fatalf("a refused form changed workspace.yaml:\n%s", after)
	}

	// A broken file is answered with its problems at their lines, for the YAML view.
	f.must(200, "PUT", "/api/workspace-yaml", "variables:\n  city: Lisbon\n", nil)
	if err := os.WriteFile(filepath.Join(f.ws, "workspace.yaml"), []byte("variables: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.must(422, "GET", "/api/variables", nil, &p)
	if len(p.Problems) == 0 {
		t.Fatalf("problems %+v", p)
	}
}

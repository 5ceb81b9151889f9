package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write creates files under dir: name → content.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAFolderIsAWorkspaceWhenItHoldsSettingsOrServers(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"a folder with workspace.yaml is one", map[string]string{"workspace.yaml": "variables: {}"}, true},
		{"a folder with a servers folder is one", map[string]string{"servers/a.yaml": "name: a"}, true},
		{"a folder of flow files is not", map[string]string{"flow.yaml": "service: {name: x}"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.files)
			if got := Is(dir); got != c.want {
				t.Fatalf("Is = %v, want %v", got, c.want)
			}
		})
	}
	t.Run("a file is not", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, map[string]string{"workspace.yaml": ""})
		if Is(filepath.Join(dir, "workspace.yaml")) {
			t.Fatal("a file counted as a workspace")
		}
	})
}

func TestTheActiveEnvironmentWinsOverWorkspaceVariables(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"workspace.yaml": `
variables: { token: base, city: Paris }
environment: dev
environments:
  dev: { token: dev-token }
  prod: { token: prod-token }
`})
	s, ds := readSettings(dir)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	cases := []struct{ env, token string }{{"", "dev-token"}, {"prod", "prod-token"}, {"dev", "dev-token"}}
	for _, c := range cases {
		vars, err := s.Vars(c.env)
		if err != nil || vars["token"] != c.token || vars["city"] != "Paris" {
			t.Errorf("Vars(%q) = %v, %v; want token %s", c.env, vars, err, c.token)
		}
	}
	if _, err := s.Vars("stage"); err == nil || !strings.Contains(err.Error(), `unknown environment "stage"`) {
		t.Errorf("an unknown environment gave %v", err)
	}
}

func TestBrokenWorkspaceSettingsAreReportedAtTheirLine(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"a misspelt key", "variabels: {}", `1:1: variabels: unknown key "variabels" (did you mean "variables"?)`},
		{"an active environment that is not declared", "environment: prod\nenvironments: { dev: {} }", `1:14: environment: unknown environment "prod"; expected one of: dev`},
		{"a variable that is not text", "variables: { a: [1] }", `variables.a: expected a string`},
		{"a secret that names no variable", "variables: { apiKey: abcdef }\nsecrets: [apikey]", `2:11: secrets[0]: secrets names unknown variable "apikey" (did you mean "apiKey"?)`},
		{"a secret too short to mask", "environments: { dev: { pin: '12' } }\nsecrets: [pin]", `secret variable "pin" has a value shorter than 4 characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"workspace.yaml": c.text})
			_, ds := readSettings(dir)
			if !strings.Contains(ds.Error(), c.want) {
				t.Fatalf("diags %q, want %q", ds.Error(), c.want)
			}
		})
	}
	t.Run("the secret values are every environment's, longest first", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, map[string]string{"workspace.yaml": "variables: { key: aaaa, units: metric }\nenvironments: { prod: { key: bbbbbbbb } }\nsecrets: [key]"})
		s, ds := readSettings(dir)
		if got := strings.Join(s.SecretValues(), ","); len(ds) > 0 || got != "bbbbbbbb,aaaa" {
			t.Fatalf("%q %v", got, ds)
		}
	})
	t.Run("no settings file means no variables", func(t *testing.T) {
		s, ds := readSettings(t.TempDir())
		if len(ds) > 0 || s == nil || len(s.Variables) != 0 {
			t.Fatalf("%v %v", s, ds)
		}
	})
}

func TestASavedServerFileIsCheckedBeforeItIsBuilt(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"an unknown top-level key", "name: a\nmpc: {}", `2:1: mpc: unknown key "mpc" (did you mean "mcp"?)`},
		{"another kind", "name: a\nkind: rest", `2:7: kind: unknown kind "rest"`},
		{"a port out of range", "name: a\nport: 70000", `port 70000 is out of range`},
		{"a YAML syntax error", "name: a\nmcp: {tools: [}", `invalid YAML`},
		{"an mcp section that is not a mapping", "name: a\nmcp: [1]", `expected a mapping of tools`},
		{"an empty file", "", `the file is empty`},
		{"two documents", "name: a\n---\nname: b", `one YAML document`},
		{"aliases that expand too far", "name: a\nmcp:\n  variables:\n    l0: &l0 [ha, ha]\n" + laughs(4, 20), `a.yaml:18:22: YAML aliases expand to more than 100000 nodes`},
		{"a name with control codes", "kind: mcp\nname: \"get_workspace\\r\\e[8m\"", `a.yaml:2:7: server name "get_workspace\r\x1b[8m" holds a control or invisible character`},
		{"a name with a bidi override", "name: \"abc\\u202Edcba\"", `server name "abc\u202edcba" holds a control`},
		{"an alias inside the node it names", "name: a\nmcp: &m\n  tools: [*m]", `a.yaml:3:11: mcp.tools[0]: alias *m is used inside the node it names`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := parseServer("servers/a.yaml", []byte(c.text))
			if len(ds) == 0 || !strings.Contains(ds.Error(), c.want) {
				t.Fatalf("diags %q, want %q", ds.Error(), c.want)
			}
		})
	}
	t.Run("the name defaults to the file name and the path to /mcp", func(t *testing.T) {
		s, ds := parseServer("servers/Weather mock.yaml", []byte("kind: mcp\nmcp: { cors: true }"))
		if len(ds) > 0 || s.Name != "Weather mock" || s.Path != "/mcp" || s.PortSet || !s.CORS {
			t.Fatalf("%+v %v", s, ds)
		}
	})
	t.Run("a file name with control codes is refused as the name it gives", func(t *testing.T) {
		if _, ds := parseServer("servers/a\x1b[2Jb.yaml", []byte("kind: mcp\n")); len(ds) == 0 || !strings.Contains(ds.Error(), "holds a control") {
			t.Fatalf("diags %v", ds)
		}
	})
}

// laughs writes levels l1..ln of a billion-laughs mapping, each doubling the
// one before, indented by indent spaces.
func laughs(indent, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [*l%d, *l%d]\n", strings.Repeat(" ", indent), i, i, i-1, i-1)
	}
	return b.String()
}

func TestASavedServerMayReuseItsPartsThroughAliases(t *testing.T) {
	s, ds := parseServer("servers/a.yaml", []byte("name: a\nmcp:\n  <<: &base { path: /x, cors: true }\n  tools: &t [ { name: a, result: x } ]\n  prompts: []\n"))
	if len(ds) > 0 || s.Path != "/x" || !s.CORS {
		t.Fatalf("%+v %v", s, ds)
	}
}

func TestServersWithoutAPortGetTheNextFreeOne(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"servers/a.yaml":      "name: A\nport: 3005",
		"servers/b.yaml":      "name: B",
		"servers/c.yaml":      "name: C",
		"servers/d.yaml":      "name: a", // the name of a.yaml, in other case
		"servers/e.yaml":      "name: E\nport: 3005",
		"servers/.f.yaml":     "not: read",
		"servers/notes.txt":   "not read",
		"servers/broken.yaml": "name: [",
	})
	servers, ds := ReadAll(dir)
	got := map[string]int{}
	for _, s := range servers {
		got[s.Name] = s.Port
	}
	if len(got) != 3 || got["A"] != 3005 || got["B"] != 3004 || got["C"] != 3006 {
		t.Fatalf("ports = %v", got)
	}
	text := ds.Error()
	for _, want := range []string{`broken.yaml:1`, `d.yaml:1:1: server name "a" is already used by`, `e.yaml:1:1: port 3005 is already used by`} {
		if !strings.Contains(text, want) {
			t.Errorf("problems %q lack %q", text, want)
		}
	}
	if p := (&Writer{dir: dir}).NextPort(); p != 3007 {
		t.Errorf("NextPort = %d, want 3007", p)
	}
}

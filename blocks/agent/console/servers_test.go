package console_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

type problemBody struct {
	Error    string
	Problems []struct {
		Line, Col     int
		Message, Text string
	}
}

// A server made from the starter is edited as YAML (a broken edit is refused at its line and
// changes nothing), renamed, duplicated, deleted and brought back.
func TestAServersFileIsEditedRenamedDuplicatedDeletedAndUndone(t *testing.T) {
	f := newFixture(t)
	var made struct{ Name, File string }
	f.must(201, "POST", "/api/new", map[string]any{}, &made)
	if made.Name != "New server" || made.File != "servers/New server.yaml" {
		t.Fatalf("made %+v", made)
	}
	f.must(201, "POST", "/api/new", map[string]any{}, &made)
	if made.Name != "New server 2" {
		t.Fatalf("the second new server is %q", made.Name)
	}
	var y struct{ Name, File, YAML string }
	f.must(200, "GET", "/api/yaml?name=New+server", nil, &y)
	if !strings.Contains(y.YAML, `name: "New server"`) || !strings.Contains(y.YAML, "port: 3004") {
		t.Fatalf("the starter's text:\n%s", y.YAML)
	}

	broken := strings.Replace(y.YAML, "port: 3004", "port: 3004\nporrt: 1", 1)
	line := strings.Count(broken[:strings.Index(broken, "porrt")], "\n") + 1
	var p problemBody
	f.must(422, "PUT", "/api/yaml?name=New+server", broken, &p)
	if len(p.Problems) == 0 || p.Problems[0].Line != line || !strings.Contains(p.Problems[0].Text, "porrt") {
		t.Fatalf("problems %+v, want one at line %d naming porrt", p, line)
	}
	if got, _ := os.ReadFile(filepath.Join(f.ws, "servers", "New server.yaml")); string(got) != y.YAML {
		t.Fatal("a refused edit was written")
	}
	edited := strings.Replace(y.YAML, "port: 3004", "port: 0 # any free port", 1)
	f.must(200, "PUT", "/api/yaml?name=New+server", edited, nil)

	f.must(201, "POST", "/api/rename", map[string]string{"name": "New server", "to": "Weather 2"}, nil)
	text, err := os.ReadFile(filepath.Join(f.ws, "servers", "Weather 2.yaml"))
	if err != nil || !strings.Contains(string(text), `name: "Weather 2"`) || !strings.Contains(string(text), "# any free port") {
		t.Fatalf("renamed file (%v):\n%s", err, text)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "servers", "New server.yaml")); !os.IsNotExist(err) {
		t.Fatal("the old file stays after the rename")
	}
	f.must(409, "POST", "/api/rename", map[string]string{"name": "Weather 2", "to": "Weather"}, nil)

	f.must(201, "POST", "/api/duplicate", map[string]string{"name": "Weather"}, &made)
	if made.Name != "Weather copy" {
		t.Fatalf("duplicate %+v", made)
	}

	var del struct{ Deleted, Undo string }
	f.must(200, "POST", "/api/delete", map[string]string{"name": "Weather copy"}, &del)
	if names(f.state()) != "New server 2,Weather,Weather 2" {
		t.Fatalf("after delete: %s", names(f.state()))
	}
	f.must(201, "POST", "/api/undo", map[string]string{"undo": del.Undo}, nil)
	f.must(404, "POST", "/api/undo", map[string]string{"undo": del.Undo}, nil)
	if names(f.state()) != "New server 2,Weather,Weather 2,Weather copy" {
		t.Fatalf("after undo: %s", names(f.state()))
	}
}

func names(s state) string {
	var out []string
	for _, srv := range s.Servers {
		out = append(out, srv.Name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// The agent tools answer the console as the user: no question is asked for the user's own
// changes; a tool is switched off and on through get_server and save_server.
func TestTheUsersOwnActionsNeedNoApproval(t *testing.T) {
	f := newFixture(t)
	var res struct {
		IsError bool
		Text    string
	}
	f.must(200, "POST", "/api/call", map[string]any{"tool": "start_server", "arguments": map[string]string{"name": "Weather"}}, &res)
	if res.IsError || !strings.Contains(res.Text, "serves at http://127.0.0.1:") {
		t.Fatalf("start_server: %+v", res)
	}
	f.must(200, "POST", "/api/call", map[string]any{"tool": "call_server",
		"arguments": map[string]any{"server": "Weather", "tool": "get_weather", "arguments": map[string]string{"city": "Lisbon"}}}, &res)
	if res.IsError || !strings.Contains(res.Text, "sunny in Lisbon") {
		t.Fatalf("call_server: %+v", res)
	}
	if s := f.state(); len(s.Pending) != 0 || len(s.History) != 0 || !s.Servers[0].Running {
		t.Fatalf("state %+v", s)
	}

	f.must(200, "POST", "/api/tool-enabled", map[string]any{"name": "Weather", "tool": "get_weather", "enabled": false}, nil)
	text, _ := os.ReadFile(filepath.Join(f.ws, "servers", "Weather.yaml"))
	if !strings.Contains(string(text), "enabled: false") {
		t.Fatalf("switched off:\n%s", text)
	}
	f.must(404, "POST", "/api/tool-enabled", map[string]any{"name": "Weather", "tool": "nope", "enabled": false}, nil)
	f.must(200, "POST", "/api/tool-enabled", map[string]any{"name": "Weather", "tool": "get_weather", "enabled": true}, nil)
	text, _ = os.ReadFile(filepath.Join(f.ws, "servers", "Weather.yaml"))
	if strings.Contains(string(text), "enabled") {
		t.Fatalf("switched on:\n%s", text)
	}
}

// workspace.yaml is read and written whole; a broken one is refused at its line.
func TestWorkspaceVariablesAreEditedAsYAML(t *testing.T) {
	f := newFixture(t)
	var p problemBody
	f.must(422, "PUT", "/api/workspace-yaml", "variables:\n  city: Lisbon\nenvironment: staging\n", &p)
	if len(p.Problems) == 0 || p.Problems[0].Line != 3 || !strings.Contains(p.Problems[0].Text, "workspace.yaml:3") {
		t.Fatalf("problems %+v", p)
	}
	text := "variables:\n  city: Lisbon\nenvironments:\n  staging: { city: Porto }\nenvironment: staging\n"
	f.must(200, "PUT", "/api/workspace-yaml", text, nil)
	var got struct{ YAML string }
	f.must(200, "GET", "/api/workspace-yaml", nil, &got)
	if got.YAML != text {
		t.Fatalf("read back %q", got.YAML)
	}
	var res struct{ Text string }
	f.must(200, "POST", "/api/call", map[string]any{"tool": "get_workspace"}, &res)
	var ws struct {
		Variables    []string
		Environments map[string][]string
		Environment  string
	}
	if err := json.Unmarshal([]byte(res.Text), &ws); err != nil || ws.Environment != "staging" || len(ws.Variables) != 1 {
		t.Fatalf("get_workspace %s (%v)", res.Text, err)
	}
}

// Settings change in settings.yaml; what is left out stays.
func TestSettingsAreSaved(t *testing.T) {
	f := newFixture(t)
	f.must(200, "POST", "/api/settings", map[string]any{"allow": true, "approve": "never"}, nil)
	f.must(200, "POST", "/api/settings", map[string]any{"withoutApp": true}, nil)
	s := f.state().Settings
	if !s.Allow || !s.WithoutApp || s.Approve != "never" {
		t.Fatalf("settings %+v", s)
	}
	data, _ := os.ReadFile(filepath.Join(f.dir, "settings.yaml"))
	if !strings.Contains(string(data), "approve: never") {
		t.Fatalf("settings.yaml:\n%s", data)
	}
	if code, _ := f.do("POST", "/api/settings", map[string]any{"approve": nil}); code != http.StatusOK {
		t.Fatalf("null approve answered %d", code)
	}
}

// The console's own writes take the workspace's write lock: while another process (here a
// lock of its own) writes to the workspace, making a server, saving workspace.yaml or the
// variables waits, and goes through once it lets go.
func TestTheConsoleWaitsForAnotherProcessWriting(t *testing.T) {
	for _, c := range []struct {
		name, method, path string
		body               any
		file               string // what the call writes
		status             int
	}{
		{"a new server", "POST", "/api/new", map[string]any{}, "servers/New server.yaml", http.StatusCreated},
		{"workspace.yaml", "PUT", "/api/workspace-yaml", "variables: {city: Paris}\n", "workspace.yaml", http.StatusOK},
		{"the variables", "POST", "/api/variables", map[string]any{"variables": map[string]string{"city": "Paris"}}, "workspace.yaml", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			held, err := workspace.Lock(context.Background(), f.ws)
			if err != nil {
				t.Fatal(err)
			}
			answered := make(chan int, 1)
			go func() {
				status, _ := f.do(c.method, c.path, c.body)
				answered <- status
			}()
			select {
			case status := <-answered:
				t.Fatalf("%s answered %d while another process writes", c.path, status)
			case <-time.After(300 * time.Millisecond):
			}
			if _, err := os.Stat(filepath.Join(f.ws, c.file)); err == nil {
				t.Fatalf("%s was written while another process writes", c.file)
			}
			held.Unlock()
			select {
			case status := <-answered:
				if status != c.status {
					t.Fatalf("%s after the other process let go: %d, want %d", c.path, status, c.status)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("%s did not go through after the other process let go", c.path)
			}
			if _, err := os.Stat(filepath.Join(f.ws, c.file)); err != nil {
				t.Fatalf("%s not written: %v", c.file, err)
			}
		})
	}
}

// A running server on a fixed port is renamed: its own old file's port is no clash, and it
// serves again, under its new name, on the same port.
func TestARunningServerOnAFixedPortIsRenamedAndServesAgain(t *testing.T) {
	f := newFixture(t)
	port := freePort(t)
	if err := os.WriteFile(filepath.Join(f.ws, "servers", "Fixed.yaml"),
		[]byte("name: Fixed\nkind: mcp\nport: "+strconv.Itoa(port)+"\nmcp:\n  tools: [ { name: t, result: ok } ]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct{ IsError bool }
	eventually(t, func() bool {
		f.must(200, "POST", "/api/call", map[string]any{"tool": "start_server", "arguments": map[string]string{"name": "Fixed"}}, &res)
		return !res.IsError
	})
	t.Run("a refused rename leaves it running", func(t *testing.T) {
		settings := filepath.Join(f.ws, "workspace.yaml")
		if err := os.WriteFile(settings, []byte("variables: [not, a, mapping]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f.must(422, "POST", "/api/rename", map[string]string{"name": "Fixed", "to": "Fixed again"}, nil)
		if err := os.Remove(settings); err != nil {
			t.Fatal(err)
		}
		for _, s := range f.state().Servers {
			if s.Name == "Fixed" && !s.Running {
				t.Fatalf("the refused rename stopped it: %+v", s)
			}
		}
	})
	f.must(201, "POST", "/api/rename", map[string]string{"name": "Fixed", "to": "Fixed again"}, nil)
	want := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	for _, s := range f.state().Servers {
		if s.Name == "Fixed" || s.Name == "Fixed again" && (!s.Running || s.URL != want) {
			t.Fatalf("after the rename: %+v, want Fixed again running at %s", s, want)
		}
	}
}

// freePort is a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// eventually polls cond for up to 10 seconds.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10 s")
		}
	}
}

// workspace.yaml is read as the servers are: a link to a file outside the workspace is not
// followed, so the console never shows (nor an attacker who planted it reads through it) what
// lies there.
func TestWorkspaceYAMLThatLeadsOutsideIsNotRead(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "private.txt")
	if err := os.WriteFile(outside, []byte("the owner's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.ws, "workspace.yaml")); err != nil {
		t.Fatal(err)
	}
	code, body := f.do("GET", "/api/workspace-yaml", nil)
	if code != 422 || strings.Contains(string(body), "the owner's secret") || !strings.Contains(string(body), "leads outside the workspace") {
		t.Fatalf("answered %d %s", code, body)
	}
}

// A hand edit that the server cannot take (two tools of one name) shows in its traffic, where
// the console shows errors, not only in the app's log; the version serving goes on.
func TestAHandEditsProblemsShowInTheServersTraffic(t *testing.T) {
	f := newFixture(t)
	var res struct{ IsError bool }
	f.must(200, "POST", "/api/call", map[string]any{"tool": "start_server", "arguments": map[string]string{"name": "Weather"}}, &res)
	file := filepath.Join(f.ws, "servers", "Weather.yaml")
	twice := strings.Replace(weather, "  tools:\n", "  tools:\n    - name: get_weather\n      result: again\n", 1)
	if err := os.WriteFile(file, []byte(twice), 0o644); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Entries []struct{ Server, Kind, Summary string }
	}
	eventually(t, func() bool {
		f.must(200, "GET", "/api/traffic?server=Weather", nil, &tr)
		for _, e := range tr.Entries {
			if e.Kind == "problem" && strings.Contains(e.Summary, `duplicate tool name "get_weather"`) && strings.Contains(e.Summary, "Weather.yaml:") {
				return true
			}
		}
		return false
	})
	if s := f.state(); !s.Servers[0].Running {
		t.Fatalf("state %+v: want it serving", s.Servers)
	}
	// An edit refused whole (an unknown key) is there too, and the last good version serves.
	if err := os.WriteFile(file, []byte(strings.Replace(weather, "description:", "descripton:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		f.must(200, "GET", "/api/traffic?server=Weather", nil, &tr)
		for _, e := range tr.Entries {
			if e.Kind == "problem" && strings.Contains(e.Summary, `unknown key "descripton"`) && strings.HasPrefix(e.Summary, "servers/Weather.yaml:") {
				return true
			}
		}
		return false
	})
	if s := f.state(); !s.Servers[0].Running || s.Servers[0].Problem == "" {
		t.Fatalf("state %+v: want it serving the last good version, with the problem", s.Servers)
	}
}

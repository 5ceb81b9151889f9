package workspace_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

func TestCheckServerGivesTheMessagesTheSavedFileWould(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"workspace.yaml":       "variables: {token: t}\n",
		"servers/Taken.yaml":   "name: Taken\nport: 3004\n",
		"servers/Replace.yaml": "name: Replace\nport: 3010\n",
	})
	file := workspace.ServerFile(dir, "New")
	for _, c := range []struct{ name, text, want string }{
		{"a key the file does not take", "name: New\nkind: mcp\nprot: 1\n", file + `:3:1: prot: unknown key "prot" (did you mean "port"?)`},
		{"an unknown variable", "name: New\nmcp:\n  tools: [ { name: a, result: '{{nope}}' } ]\n", `unknown variable "nope"`},
		{"another server's name", "name: taken\n", `server name "taken" is already used by ` + filepath.Join(dir, "servers", "Taken.yaml")},
		{"another server's port", "name: New\nport: 3004\n", "port 3004 is already used by"},
		{"two documents", "name: New\n---\nname: Other\n", file + ":3: a saved server is one YAML document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := workspace.CheckServer(dir, file, []byte(c.text), "")
			if !strings.Contains(ds.Error(), c.want) {
				t.Fatalf("problems:\n%v\nwant %q", ds.Error(), c.want)
			}
		})
	}
	t.Run("a good server, its port assigned past the others'", func(t *testing.T) {
		s, ds := workspace.CheckServer(dir, file, []byte("name: New\nmcp:\n  tools: [ { name: a, result: '{{token}}' } ]\n"), "")
		if len(ds) > 0 || s.Name != "New" || s.Port != 3005 {
			t.Fatalf("%+v %v", s, ds)
		}
	})
	t.Run("a server checked as its own file keeps its port", func(t *testing.T) {
		replace := filepath.Join(dir, "servers", "Replace.yaml")
		if _, ds := workspace.CheckServer(dir, replace, []byte("name: Replace\nport: 3010\n"), ""); len(ds) > 0 {
			t.Fatal(ds)
		}
	})
}

// An agent saves a server and starts it at once, before the watcher has taken the new file as
// settled: the server keeps serving while the file settles, though other edits settle meanwhile.
func TestAServerStartedBeforeItsFileSettledKeepsServing(t *testing.T) {
	dir := t.TempDir()
	rn, err := workspace.NewServers(dir, workspace.Options{Manual: true, Poll: 10 * time.Millisecond, Settle: 300 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if err := rn.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { rn.Follow(ctx); close(done) }()
	defer func() { cancel(); <-done; rn.Close() }()
	time.Sleep(30 * time.Millisecond) // the watcher has looked at the folder without the files
	// Another edit that settles while the new file has not.
	writeFiles(t, dir, map[string]string{"workspace.yaml": "variables: {a: b}\n"})
	time.Sleep(100 * time.Millisecond)
	file := workspace.ServerFile(dir, "New")
	if err := lock(t, dir).WriteServer(file, []byte("name: New\nport: 0\n")); err != nil {
		t.Fatal(err)
	}
	st, err := rn.Start(ctx, "New")
	if err != nil || !st.Running {
		t.Fatalf("%+v %v", st, err)
	}
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if st := stateOf(t, rn, "New"); !st.Running {
			t.Fatalf("stopped while its file settled: %+v", st)
		}
	}
}

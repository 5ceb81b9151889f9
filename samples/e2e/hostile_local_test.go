package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/octo-run/octo/blocks/agent/appdata"
)

// The hostile local user: another uid on the same machine (65534, nobody), which can reach
// every loopback port and every file the owner leaves open to others, as a shared machine's
// other users can. The tests run as root and start it with syscall.Credential; its program
// (samples/e2e/attacker) is built into a folder it may enter.

const otherUID = 65534

var attacker struct {
	once sync.Once
	path string
	err  error
}

// asOtherUser runs the attacker program as uid 65534 with args and returns what it printed.
func asOtherUser(t *testing.T, args ...string) string {
	t.Helper()
	cmd := otherUserCommand(t, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("attacker %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// otherUserCommand is the attacker program as uid 65534, not started.
func otherUserCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the hostile-local-user tests start another uid, which needs root (CI runs them as root)")
	}
	attacker.once.Do(func() {
		dir, err := os.MkdirTemp("", "octo-attacker")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			attacker.err = err
			return
		}
		attacker.path = filepath.Join(dir, "attacker")
		build := exec.Command("go", "build", "-o", attacker.path, "./samples/e2e/attacker")
		build.Dir = repoRoot()
		if out, err := build.CombinedOutput(); err != nil {
			attacker.err = err
			attacker.path = string(out)
		}
	})
	if attacker.err != nil {
		t.Fatalf("building the attacker: %v\n%s", attacker.err, attacker.path)
	}
	cmd := exec.Command(attacker.path, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUID, Gid: otherUID}}
	return cmd
}

// sharedHome is a folder others may enter, as a home folder often is: what keeps them out of
// octo's data folder inside it is that folder's own mode.
func sharedHome(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "octo-home")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Another local user reaches the console's port but gets nothing from it: every page, script,
// API call and event stream answers 401 with the words that say how the owner gets in, none
// holds a secret, a guessed login link is refused, a change is refused, and the data folder
// that holds the link is closed to them. The owner's link still opens the console afterwards.
func TestAnotherLocalUserCannotUseTheConsole(t *testing.T) {
	home := sharedHome(t)
	dataDir, ws := filepath.Join(home, "data"), filepath.Join(home, "ws")
	p := startApp(t, "--data-dir", dataDir, "--workspace", ws)
	base, login := consoleLinks(t, p)
	secret := login[strings.Index(login, "secret=")+len("secret="):]
	for _, path := range []string{"", "index.html", "js/api.js", "api/state", "api/events", "api/traffic", "api/traffic/export",
		"login", "login?secret=" + strings.Repeat("A", len(secret))} {
		out := asOtherUser(t, "get", base+path)
		if !strings.HasPrefix(out, "status 401\n") && !strings.HasPrefix(out, "status 404\n") || strings.Contains(out, secret) ||
			strings.Contains(out, "set-cookie octo") {
			t.Errorf("GET /%s as another user:\n%s", path, out)
		}
		if strings.HasPrefix(out, "status 401") && !strings.Contains(out, "octo app --print-url") {
			t.Errorf("GET /%s as another user does not say how to get in:\n%s", path, out)
		}
	}
	for _, post := range [][2]string{{"api/settings", `{"allow":true,"approve":"never"}`}, {"api/answer", `{"id":1,"answer":"always"}`},
		{"api/call", `{"tool":"save_server","arguments":{"name":"x","kind":"mcp","port":0,"mcp":{}}}`}} {
		if out := asOtherUser(t, "post", base+post[0], post[1]); !strings.HasPrefix(out, "status 401\n") {
			t.Errorf("POST /%s as another user:\n%s", post[0], out)
		}
	}
	for _, file := range []string{appdata.ConsoleFile, appdata.InfoFile, appdata.SettingsFile} {
		if out := asOtherUser(t, "read", filepath.Join(dataDir, file)); !strings.Contains(out, "permission denied") {
			t.Errorf("reading %s as another user: %s", file, out)
		}
	}
	c := logIn(t, base, login)
	var s struct {
		Settings struct{ Allow bool }
		Servers  []any
	}
	c.call(t, "GET", "api/state", nil, &s)
	if s.Settings.Allow || len(s.Servers) != 0 {
		t.Fatalf("another user changed something: %+v", s)
	}
}

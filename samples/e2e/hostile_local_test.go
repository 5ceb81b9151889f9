package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/agentlink/appdata"
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
		{"api/call", `{"tool":"save_server","arguments":{"name":"x","kind":"mcp","port":0,"mcp":{}}}`},
		{"api/call", `{"tool":"call_server","progress":true,"arguments":{"server":"x","tool":"t"}}`}} { // the streamed answer too
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

// Another user floods the agent port with 200 silent sockets, dialling again each one the app
// closes, for as long as the test runs. Agents are served all the while: octo mcp (the built
// binary, in the official Go SDK's hands) connects, calls and is answered; no second app is
// started; the app's log holds about a line a second about the flood, not one per socket.
func TestAgentsAreServedWhileAnotherUserFloodsTheAgentPort(t *testing.T) {
	h := newAppHome(t)
	app := startApp(t, "--data-dir", h.dataDir)
	info, err := appdata.ReadInfo(h.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	flood := otherUserCommand(t, "hold", "127.0.0.1:"+strconv.Itoa(info.Port), "200", "6s")
	out, err := flood.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := flood.Start(); err != nil {
		t.Fatal(err)
	}
	defer flood.Process.Kill()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("the flood did not start: %q", lines.Text())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 3 { // three agents, one after the other, each with calls of its own
		client := mcp.NewClient(&mcp.Implementation{Name: "agent-" + strconv.Itoa(i), Version: "1"}, nil)
		cs, stderr := connectStdio(t, ctx, client, h.env, "mcp")
		for range 3 {
			if text, isErr := toolText(t, ctx, cs, "list_servers", map[string]any{}); isErr {
				t.Fatalf("list_servers during the flood = %q\n%s\napp log:\n%s", text, stderr, app.log())
			}
		}
		cs.Close()
	}
	if lines.Scan(); !strings.HasPrefix(lines.Text(), "dials ") {
		t.Fatalf("the flood ended with %q", lines.Text())
	}
	dials, _ := strconv.Atoi(strings.TrimPrefix(lines.Text(), "dials "))
	if dials < 300 {
		t.Fatalf("the flood dialled %d times: the app kept its sockets instead of closing them", dials)
	}
	if n := len(h.started()); n != 0 {
		t.Fatalf("the bridges started %d apps beside the running one", n)
	}
	if n := strings.Count(app.log(), "WARN"); n > 12 {
		t.Fatalf("%d warnings for %d dials in 6 s: the flood floods the log", n, dials)
	}
	t.Logf("the other user dialled %d times in 6 s; the app logged %d warnings", dials, strings.Count(app.log(), "WARN"))
}

// Another user makes the data folder before the owner does (a shared /tmp, a guessed
// OCTO_DATA_DIR) and plants an app.lock that links to a file of the owner's. octo app refuses
// the folder, saying whose it is, and creates nothing through the link; a folder of the
// owner's own that others may write in is refused too.
func TestADataFolderAnotherUserMadeIsRefused(t *testing.T) {
	home := sharedHome(t)
	if err := os.Chmod(home, 0o1777); err != nil { // as /tmp is: anybody may make a folder in it
		t.Fatal(err)
	}
	dataDir, target := filepath.Join(home, "data"), filepath.Join(home, "owners-file")
	for _, step := range [][]string{{"mkdir", dataDir}, {"symlink", target, filepath.Join(dataDir, appdata.AppLockFile)}} {
		if out := asOtherUser(t, step...); strings.TrimSpace(out) != "ok" {
			t.Fatalf("the other user's %s: %s", step[0], out)
		}
	}
	out, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--workspace", filepath.Join(home, "ws")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the data folder "+dataDir) || !strings.Contains(string(out), "belongs to user 65534") {
		t.Fatalf("octo app on another user's data folder: %v\n%s", err, out)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the planted link's target was created")
	}
	own := filepath.Join(home, "open")
	if err := os.Mkdir(own, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(own, 0o777); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(octoBin, "app", "--data-dir", own, "--print-url").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "lets the group or others write in it (chmod 700 it)") {
		t.Fatalf("octo app on a folder others may write in: %v\n%s", err, out)
	}
}

// An agent's octo mcp is killed (SIGKILL) while its start_server waits for the user's answer.
// The question does not stay in the console for the approval timeout: it ends as withdrawn
// within seconds, once the app finds the bridge gone, and the agent no longer shows connected.
func TestAKilledBridgesQuestionEndsWithItsConnection(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "A.yaml"), "name: A\nkind: mcp\nport: 0\n")
	app := startApp(t, "--data-dir", dataDir, "--workspace", ws, "--allow-agents")
	console := openConsole(t, app)
	b := startBridge(t, []string{"OCTO_DATA_DIR=" + dataDir})
	b.send(t, agentInitialize("2025-06-18"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_server","arguments":{"name":"A"}}}`)
	type state struct {
		Pending []struct{ ID uint64 }
		Agents  []struct{ Name string }
		History []struct{ Outcome, Summary string }
	}
	var s state
	for deadline := time.Now().Add(20 * time.Second); len(s.Pending) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no question waits in the console\n%s", b.stderr)
		}
		console.call(t, "GET", "api/state", nil, &s)
	}
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for deadline := time.Now().Add(10 * time.Second); len(s.Pending) > 0 || len(s.Agents) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the bridge was killed: %+v\n%s", s, app.log())
		}
		console.call(t, "GET", "api/state", nil, &s)
	}
	if h := s.History[len(s.History)-1]; h.Outcome != "withdrawn" || !strings.HasPrefix(h.Summary, `start_server "A"`) {
		t.Fatalf("history %+v", s.History)
	}
	t.Logf("the question ended %s after the bridge was killed", time.Since(killed).Round(100*time.Millisecond))
}

package agenttools_test

// Saves in two processes on one workspace: the app and a bridge working without it, two such
// bridges, or two apps with data folders of their own. The other process is this test binary
// run again (lockPeer), holding the workspace through the real app.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
)

// peerEnv hands the other process its part: "save" or "hold", the data folder, the workspace.
const peerEnv = "AGENTTOOLS_LOCK_PEER"

// savesEach is how many servers each process saves in TestSavesInTwoProcessesTakeTurns.
const savesEach = 15

// peer is the other process, started and told to begin.
type peer struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Reader
}

// startPeer runs this test binary as lockPeer doing part on data and ws, and waits for it to
// say ready.
func startPeer(t *testing.T, part, data, ws string) *peer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peerEnv+"="+strings.Join([]string{part, data, ws}, "\n"))
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &peer{cmd: cmd, in: in, lines: bufio.NewReader(out)}
	t.Cleanup(func() {
		p.in.Close()
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
	p.expect(t, "ready")
	return p
}

// expect reads the peer's next line, which must be want.
func (p *peer) expect(t *testing.T, want string) {
	t.Helper()
	line, err := p.lines.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != want {
		t.Fatalf("the other process said %q (%v), want %q", line, err, want)
	}
}

// lockPeer is the other process (TestMain runs it when peerEnv is set): it opens the app headless, as a bridge working without the
// app does, says ready, and on the first line of its input does its part: "save" saves
// savesEach servers and says done; "hold" holds the tools' write lock (Tools.Writing), says
// held, and lets go when its input ends.
func lockPeer() {
	f := strings.Split(os.Getenv(peerEnv), "\n")
	part, data, ws := f[0], f[1], f[2]
	fail := func(err error) {
		fmt.Println("failed: " + strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
	ctx := context.Background()
	a, err := app.Open(ctx, app.Options{DataDir: data, Workspace: ws, Headless: true, Poll: -1})
	if err != nil {
		fail(err)
	}
	fmt.Println("ready")
	in := bufio.NewReader(os.Stdin)
	_, _ = in.ReadString('\n')
	switch part {
	case "save":
		if err := saveMany(a.Tools(), "peer"); err != nil {
			fail(err)
		}
		fmt.Println("done")
	case "hold":
		_ = a.Tools().Writing(ctx, func(*workspace.Writer) {
			fmt.Println("held")
			_, _ = in.ReadString('\n')
		})
	}
	_ = a.Close(ctx)
	os.Exit(0)
}

// saveMany saves savesEach servers named prefix-N without a port, so each takes the next free
// one, as the user's console does.
func saveMany(tools *agenttools.Tools, prefix string) error {
	for i := range savesEach {
		res, err := saveServer(context.Background(), tools, fmt.Sprintf("%s-%d", prefix, i))
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s-%d: %s", prefix, i, res.Content[0].Text)
		}
	}
	return nil
}

func saveServer(ctx context.Context, tools *agenttools.Tools, name string) (*mcp.CallToolResult, error) {
	args, _ := json.Marshal(map[string]any{"name": name, "kind": "mcp", "mcp": map[string]any{"tools": []any{map[string]any{"name": "ping"}}}})
	return tools.Call(ctx, agenttools.Call{Name: agenttools.SaveServer, Args: args, ByUser: true})
}

// Two processes saving into one workspace at once take turns: every server is saved, each on
// a port of its own (without the workspace's write lock, both read the folder, pick the same
// free port, and one file is then left out as a clash). The other process has a data folder
// of its own: the lock goes with the workspace, not with the app.
func TestSavesInTwoProcessesTakeTurns(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, nil)
	p := startPeer(t, "save", t.TempDir(), ws)
	if _, err := io.WriteString(p.in, "go\n"); err != nil {
		t.Fatal(err)
	}
	if err := saveMany(a.Tools(), "app"); err != nil {
		t.Fatal(err)
	}
	p.expect(t, "done")
	servers, problems := workspace.ReadAll(ws)
	if len(problems) > 0 {
		t.Fatalf("the saved files have problems:\n%v", problems.Err())
	}
	ports := map[int]string{}
	for _, s := range servers {
		if other, taken := ports[s.Port]; taken {
			t.Errorf("%q and %q were both saved on port %d", other, s.Name, s.Port)
		}
		ports[s.Port] = s.Name
	}
	if len(servers) != 2*savesEach {
		t.Fatalf("%d servers saved, want %d", len(servers), 2*savesEach)
	}
}

// A save waits while another process writes, says why when it gives up (and writes nothing),
// and goes through once the other lets go.
func TestASaveWaitsForAnotherProcessAndSaysWhyWhenItGivesUp(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, nil)
	p := startPeer(t, "hold", a.DataDir(), ws)
	if _, err := io.WriteString(p.in, "go\n"); err != nil {
		t.Fatal(err)
	}
	p.expect(t, "held")

	impatient := agenttools.New(a, agenttools.Options{LockWait: 200 * time.Millisecond})
	res, err := saveServer(context.Background(), impatient, "Weather mock")
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].Text, "is still writing to this workspace") ||
		!strings.Contains(res.Content[0].Text, "nothing was changed") {
		t.Fatalf("a save while another process writes: %v %q, want a failure saying why", res.IsError, res.Content[0].Text)
	}
	if _, err := os.Stat(workspace.ServerFile(ws, "Weather mock")); err == nil {
		t.Fatal("the save that gave up wrote its file")
	}
	if err := impatient.Writing(context.Background(), func(*workspace.Writer) { t.Error("Writing ran while another process writes") }); err == nil {
		t.Fatal("Writing while another process writes: no error")
	}

	saved := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := saveServer(context.Background(), a.Tools(), "Weather mock")
		if err != nil {
			t.Error(err)
		}
		saved <- res
	}()
	select {
	case res := <-saved:
		t.Fatalf("saved while another process writes: %+v", res)
	case <-time.After(300 * time.Millisecond):
	}
	p.in.Close() // the other process lets go
	select {
	case res := <-saved:
		if res == nil || res.IsError {
			t.Fatalf("the save after the other process let go: %+v", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the save did not go through after the other process let go")
	}
}

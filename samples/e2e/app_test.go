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
	"github.com/octo-run/octo/agentlink/handshake"
)

// appProc is a running `octo app` with what it printed.
type appProc struct {
	cmd            *exec.Cmd
	mu             sync.Mutex
	stdout, stderr strings.Builder
	done           chan struct{}
	err            error
}

func (p *appProc) out() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

func (p *appProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startApp runs the built binary's `octo app` with args, its standard input not a terminal,
// and waits until it printed the agents' port.
func startApp(t *testing.T, args ...string) *appProc {
	t.Helper()
	p := &appProc{cmd: exec.Command(octoBin, append([]string{"app"}, args...)...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "OCTO_DATA_DIR=") // only --data-dir names the folder
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range []struct {
		r interface{ Read([]byte) (int, error) }
		b *strings.Builder
	}{{stdout, &p.stdout}, {stderr, &p.stderr}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(s.r)
			for sc.Scan() {
				p.mu.Lock()
				s.b.WriteString(sc.Text() + "\n")
				p.mu.Unlock()
			}
		}()
	}
	go func() {
		wg.Wait()
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("octo app printed:\n%s\nlog:\n%s", p.out(), p.log())
		}
	})
	p.waitOut(t, "agents connect on")
	return p
}

// waitOut waits until octo app has printed text on standard output.
func (p *appProc) waitOut(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.out(), text) {
		select {
		case <-p.done:
			t.Fatalf("octo app exited before it printed %q: %v\n%s\n%s", text, p.err, p.out(), p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("octo app did not print %q\n%s\n%s", text, p.out(), p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *appProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("octo app did not stop on SIGTERM")
	}
	if p.err != nil {
		t.Fatalf("octo app exited with %v\n%s", p.err, p.log())
	}
}

// agentSession is the official Go SDK client connected to the app as octo mcp connects.
func agentSession(t *testing.T, dataDir string) *mcp.ClientSession {
	t.Helper()
	return agentSessionAs(t, dataDir, "e2e-agent")
}

// agentSessionAs is agentSession with the client's name (clientInfo.name) as given.
func agentSessionAs(t *testing.T, dataDir, name string) *mcp.ClientSession {
	t.Helper()
	info, err := appdata.ReadInfo(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := handshake.Dial(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callAgentTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	got := <-callLater(cs, name, args)
	if got.err != nil {
		t.Fatalf("tools/call %s: %v", name, got.err)
	}
	return got.text, got.isErr
}

// The app as a user runs it: flags saved, agent.json private, an agent through the handshake
// lists, starts and reads a mock, the started server comes back with the app, and SIGTERM
// stops it cleanly, agent.json gone.
func TestOctoAppServesAgentsAndRemembers(t *testing.T) {
	dataDir, ws := t.TempDir(), filepath.Join(t.TempDir(), "mocks")
	writeFile(t, filepath.Join(ws, "servers", "Weather mock.yaml"), "name: Weather mock\nkind: mcp\nport: 0\nmcp:\n"+
		"  tools: [ { name: get_weather, description: Weather, result: 'sunny in {{args.city}}' } ]\n")
	p := startApp(t, "--data-dir", dataDir, "--workspace", ws, "--allow-agents", "--approve", "never", "--agents-without-app=true",
		"--approval-timeout", "1s")
	p.waitOut(t, "Weather mock  stopped")
	if !strings.Contains(p.out(), "octo app: workspace "+ws) {
		t.Fatalf("printed:\n%s", p.out())
	}
	info, err := os.Stat(filepath.Join(dataDir, appdata.InfoFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("agent.json: %v, %v", info, err)
	}
	s, err := appdata.LoadSettings(dataDir)
	if err != nil || s.Workspace != ws || !s.Agents.Allow || !s.Agents.WithoutApp || s.Agents.Approve != appdata.ApproveNever {
		t.Fatalf("settings = %+v, %v", s, err)
	}

	cs := agentSession(t, dataDir)
	if text, isErr := callAgentTool(t, cs, "list_servers", nil); isErr || !strings.Contains(text, "Weather mock") {
		t.Fatalf("list_servers = %s", text)
	}
	text, isErr := callAgentTool(t, cs, "start_server", map[string]any{"name": "Weather mock"})
	if isErr || !strings.Contains(text, "http://127.0.0.1:") {
		t.Fatalf("start_server = %s", text)
	}
	t.Run("a second app on the data folder takes no port and prints the running app's login link", func(t *testing.T) {
		out, err := exec.Command(octoBin, "app", "--data-dir", dataDir).CombinedOutput()
		m := loginLine.FindStringSubmatch(string(out))
		if err != nil || !strings.Contains(string(out), "already running on the data folder "+dataDir) || m == nil {
			t.Fatalf("%v\n%s", err, out)
		}
		base, _ := consoleLinks(t, p)
		logIn(t, base, m[1])
		printed, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--print-url").Output()
		if err != nil || !strings.HasPrefix(string(printed), base+"login?secret=") || strings.Contains(string(printed), m[1]) {
			t.Fatalf("--print-url after a login: %v %q", err, printed)
		}
		logIn(t, base, strings.TrimSpace(string(printed)))
	})
	t.Run("settings flags given while it runs are saved, and the running app follows them", func(t *testing.T) {
		out, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--allow-agents=false").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "applies them from the next agent call") {
			t.Fatalf("%v\n%s", err, out)
		}
		// Agents no longer allowed, the call asks the user (in the console) again, unanswered here.
		if text, isErr := callAgentTool(t, cs, "list_servers", nil); !isErr || !strings.Contains(text, "did not answer within 1s") {
			t.Fatalf("list_servers after --allow-agents=false = %s", text)
		}
		if out, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--allow-agents").CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if text, isErr := callAgentTool(t, cs, "list_servers", nil); isErr {
			t.Fatalf("list_servers after --allow-agents = %s", text)
		}
	})
	p.stop(t)
	if _, err := os.Stat(filepath.Join(dataDir, appdata.InfoFile)); !os.IsNotExist(err) {
		t.Fatalf("agent.json after SIGTERM: %v", err)
	}

	t.Run("the started server starts again with the app, on the remembered workspace", func(t *testing.T) {
		again := startApp(t, "--data-dir", dataDir, "--allow-agents=false")
		again.waitOut(t, "Weather mock  http://127.0.0.1:")
		again.stop(t)
		if s, err := appdata.LoadSettings(dataDir); err != nil || s.Agents.Allow || !s.Agents.WithoutApp {
			t.Fatalf("--allow-agents=false: %+v, %v", s, err)
		}
	})
}

// Without a terminal, an agent's change is asked in the console: the user's Deny there is
// what the agent is told, and nothing changes.
func TestOctoAppWithoutATerminalAsksInTheConsole(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "A.yaml"), "name: A\nkind: mcp\nport: 0\n")
	p := startApp(t, "--data-dir", dataDir, "--workspace", ws, "--allow-agents")
	console := openConsole(t, p)
	cs := agentSession(t, dataDir)
	type answer struct {
		text  string
		isErr bool
	}
	got := make(chan answer, 1)
	go func() {
		text, isErr := callAgentTool(t, cs, "start_server", map[string]any{"name": "A"})
		got <- answer{text, isErr}
	}()
	console.answerNext(t, "deny")
	a := <-got
	if !a.isErr || !strings.Contains(a.text, "The user declined this action") {
		t.Fatalf("start_server = %s (error %v)", a.text, a.isErr)
	}
	if text, isErr := callAgentTool(t, cs, "list_servers", nil); isErr || !strings.Contains(text, `"running": false`) {
		t.Fatalf("a read: %s", text)
	}
	p.stop(t)
}

func TestOctoAppFlags(t *testing.T) {
	dataDir := t.TempDir()
	out, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--print-config").Output()
	if err != nil || !strings.Contains(string(out), "type: agent,") || !strings.Contains(string(out), "type: agent-tools") ||
		!strings.Contains(string(out), dataDir) {
		t.Fatalf("--print-config: %v\n%s", err, out)
	}
	help, _ := exec.Command(octoBin, "app", "--help").CombinedOutput()
	for _, flag := range []string{"-workspace", "-data-dir", "-allow-agents", "-agents-without-app", "-approve", "-approval-timeout", "-print-config"} {
		if !strings.Contains(string(help), flag) {
			t.Errorf("octo app --help does not document %s:\n%s", flag, help)
		}
	}
	cmd := exec.Command(octoBin, "app", "--data-dir", dataDir, "--approve", "sometimes")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `--approve is "sometimes"`) {
		t.Fatalf("a bad --approve: %v\n%s", err, out)
	}
	if out, err := exec.Command(octoBin, "app", "--data-dir", dataDir, "--agent-port", "3100", "--console-port", "3100").CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "--console-port and --agent-port are both 3100") {
		t.Fatalf("one port for both: %v\n%s", err, out)
	}
	// Never named, the workspace is one in the data folder, made and remembered. --agent-port
	// is where agents connect, as agent.json says, and octo mcp gets there.
	fresh, agentPort := t.TempDir(), freePort(t)
	p := startApp(t, "--data-dir", fresh, "--agent-port", strconv.Itoa(agentPort), "--allow-agents", "--approve", "never")
	p.waitOut(t, "workspace "+filepath.Join(fresh, "workspace"))
	if !strings.Contains(p.out(), "agents connect on 127.0.0.1:"+strconv.Itoa(agentPort)) {
		t.Errorf("--agent-port %d is not where agents connect:\n%s", agentPort, p.out())
	}
	if text, isErr := callAgentTool(t, agentSession(t, fresh), "list_servers", nil); isErr {
		t.Errorf("list_servers through --agent-port: %s", text)
	}
	p.stop(t)
	if fi, err := os.Stat(filepath.Join(fresh, "workspace", "servers")); err != nil || !fi.IsDir() {
		t.Fatalf("the default workspace was not made: %v", err)
	}
}

// toolAnswer is what a tool call called in the background came to.
type toolAnswer struct {
	text  string
	isErr bool
	err   error
}

// callLater calls a tool in the background (it waits for the user) and delivers its answer.
func callLater(cs *mcp.ClientSession, name string, args map[string]any) <-chan toolAnswer {
	out := make(chan toolAnswer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			out <- toolAnswer{err: err}
			return
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		out <- toolAnswer{text: b.String(), isErr: res.IsError}
	}()
	return out
}

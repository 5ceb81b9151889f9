package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/octo-run/octo/agentlink/appdata"
)

// openPTY opens a pseudo-terminal pair: the side a program reads as its terminal, and ours.
func openPTY(t *testing.T) (term, ours *os.File) {
	t.Helper()
	ours, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n, unlock uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ours.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ours.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close(); ours.Close() })
	return term, ours
}

// ptyApp is `octo app` on a pseudo-terminal: what it shows, and the keys typed into it.
type ptyApp struct {
	t    *testing.T
	cmd  *exec.Cmd
	ours *os.File // typed into: the user's keys
	done chan error
	mu   sync.Mutex
	raw  strings.Builder // every byte it wrote to the terminal
}

// startPTYApp runs octo app with args on a terminal of its own, and waits until it serves.
func startPTYApp(t *testing.T, args ...string) *ptyApp {
	t.Helper()
	term, ours := openPTY(t)
	p := &ptyApp{t: t, cmd: exec.Command(octoBin, append([]string{"app"}, args...)...), ours: ours, done: make(chan error, 1)}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = term, term, term
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	go func() {
		r := bufio.NewReader(ours)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.raw.WriteByte(b)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("terminal:\n%s", p.shown())
		}
	})
	p.waitShown("agents connect on")
	return p
}

func (p *ptyApp) shown() string { p.mu.Lock(); defer p.mu.Unlock(); return p.raw.String() }

// waitShown waits until the terminal showed text.
func (p *ptyApp) waitShown(text string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.shown(), text) {
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never showed %q:\n%s", text, p.shown())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typeLine types line and Enter.
func (p *ptyApp) typeLine(line string) {
	p.t.Helper()
	if _, err := p.ours.WriteString(line + "\r"); err != nil {
		p.t.Fatal(err)
	}
}

// With a terminal, octo app asks there: the first agent call asks to allow agents (y, saved),
// a change asks for approval (a: always, so the next start_server does not ask), and Ctrl-C
// stops it cleanly.
func TestOctoAppAsksInItsTerminal(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "A.yaml"), "name: A\nkind: mcp\nport: 0\n")
	p := startPTYApp(t, "--data-dir", dataDir, "--workspace", ws)
	ours, done, shown, waitShown := p.ours, p.done, p.shown, p.waitShown

	cs := agentSession(t, dataDir)
	calls := callLater(cs, "list_servers", nil)
	waitShown(`Allow AI agents to use Octo's tools? (first call: list_servers, from agent "e2e-agent")`)
	if _, err := ours.WriteString("y\r"); err != nil {
		t.Fatal(err)
	}
	if got := <-calls; got.err != nil || got.isErr || !strings.Contains(got.text, `"A"`) {
		t.Fatalf("list_servers = %+v", got)
	}
	if s, err := appdata.LoadSettings(dataDir); err != nil || !s.Agents.Allow {
		t.Fatalf("allowing agents was not saved: %+v, %v", s, err)
	}
	calls = callLater(cs, "start_server", map[string]any{"name": "A"})
	waitShown(`start_server "A", asked by agent "e2e-agent"`)
	if _, err := ours.WriteString("a\r"); err != nil {
		t.Fatal(err)
	}
	if got := <-calls; got.err != nil || got.isErr || !strings.Contains(got.text, "http://127.0.0.1:") {
		t.Fatalf("start_server = %+v", got)
	}
	before := len(shown())
	if text, isErr := callAgentTool(t, cs, "start_server", map[string]any{"name": "A"}); isErr {
		t.Fatalf("start_server again: %s", text)
	}
	if strings.Contains(shown()[before:], "asked by") {
		t.Fatalf("start_server was asked again after always:\n%s", shown()[before:])
	}
	if _, err := ours.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("octo app after Ctrl-C: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("octo app did not stop on Ctrl-C")
	}
}

// A hostile agent names itself with a carriage return, an erase-line and a conceal code, so
// that the terminal would show a harmless action while it asks to delete a server. The prompt
// shows the action first and the name last, quoted with its control codes escaped, and no byte
// of the name reaches the terminal raw (the app's log lines included).
func TestAHostileAgentNameCannotSpoofTheTerminalApproval(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "A.yaml"), "name: A\nkind: mcp\nport: 0\n")
	p := startPTYApp(t, "--data-dir", dataDir, "--workspace", ws, "--allow-agents")
	before := len(p.shown())
	const hostile = "get_workspace (read only)\r\x1b[2K\x1b[8m\u202e"
	cs := agentSessionAs(t, dataDir, hostile)
	calls := callLater(cs, "delete_server", map[string]any{"name": "A"})
	p.waitShown(`octo app: delete_server "A", asked by agent "get_workspace (read only)\r\x1b[2K\x1b[8m\u202e"`)
	shown := p.shown()[before:]
	if strings.Contains(shown, "\x1b") || strings.Contains(shown, "\u202e") || strings.Contains(strings.ReplaceAll(shown, "\r\n", "\n"), "\r") {
		t.Fatalf("the agent's control codes reached the terminal raw: %q", shown)
	}
	p.typeLine("n")
	if got := <-calls; got.err != nil || !got.isErr || !strings.Contains(got.text, "declined") {
		t.Fatalf("delete_server after n = %+v", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "servers", "A.yaml")); err != nil {
		t.Fatalf("the server was deleted: %v", err)
	}
}

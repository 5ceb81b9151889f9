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

	"github.com/octo-run/octo/blocks/agent/appdata"
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

// With a terminal, octo app asks there: the first agent call asks to allow agents (y, saved),
// a change asks for approval (a: always, so the next start_server does not ask), and Ctrl-C
// stops it cleanly.
func TestOctoAppAsksInItsTerminal(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "A.yaml"), "name: A\nkind: mcp\nport: 0\n")
	term, ours := openPTY(t)
	cmd := exec.Command(octoBin, "app", "--data-dir", dataDir, "--workspace", ws)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var mu sync.Mutex
	var screen strings.Builder
	go func() {
		r := bufio.NewReader(ours)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			mu.Lock()
			screen.WriteByte(b)
			mu.Unlock()
		}
	}()
	shown := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	waitShown := func(text string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(shown(), text) {
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q:\n%s", text, shown())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("terminal:\n%s", shown())
		}
	})
	waitShown("agents connect on")

	cs := agentSession(t, dataDir)
	calls := callLater(cs, "list_servers", nil)
	waitShown("e2e-agent wants to use Octo (list_servers). Allow AI agents to use Octo's tools?")
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
	waitShown(`e2e-agent wants to: start_server "A"`)
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
	if strings.Contains(shown()[before:], "wants to") {
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

// Package e2e runs the built octo binary against the samples and talks to it
// over real sockets with real clients.
package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var octoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "octo-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	octoBin = filepath.Join(dir, "octo")
	build := exec.Command("go", "build", "-o", octoBin, ".")
	build.Dir = repoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build and bin/octo build it
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building octo:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

// freePort asks the kernel for a port that is free right now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// proc is a running octo process with its combined log.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	grew chan struct{} // closed, and replaced, when a line is logged
	done chan struct{}
	err  error
}

func (p *proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// startOcto runs octo with args and extra environment, and waits until the
// log says it listens (or fails).
func startOcto(t testing.TB, env []string, args ...string) *proc {
	t.Helper()
	return startOctoUntil(t, env, func(line string) bool {
		return strings.Contains(line, "service started") || strings.Contains(line, "serving")
	}, args...)
}

// startOctoUntil runs octo as startOcto does, waiting for the first log line that ready
// accepts instead.
func startOctoUntil(t testing.TB, env []string, ready func(line string) bool, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(octoBin, args...), done: make(chan struct{}), grew: make(chan struct{})}
	p.cmd.Dir = repoRoot()
	p.cmd.Env = append(os.Environ(), env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
			if ready(sc.Text()) {
				once.Do(func() { close(started) })
			}
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("octo log:\n%s", p.Log())
		}
	})
	select {
	case <-started:
	case <-p.done:
		t.Fatalf("octo exited before it was ready: %v\n%s", p.err, p.Log())
	case <-time.After(30 * time.Second):
		t.Fatalf("octo not ready after 30s\n%s", p.Log())
	}
	return p
}

// waitCount waits until the log holds text n times, as each line is logged.
func (p *proc) waitCount(t testing.TB, text string, n int) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		p.mu.Lock()
		count, grew := strings.Count(p.log.String(), text), p.grew
		p.mu.Unlock()
		if count >= n {
			return
		}
		select {
		case <-grew:
		case <-p.done:
			t.Fatalf("octo exited before its log showed %q %d times: %v\n%s", text, n, p.err, p.Log())
		case <-deadline:
			t.Fatalf("the log showed %q %d times, not %d:\n%s", text, count, n, p.Log())
		}
	}
}

// runSample starts a sample on a free port given through HTTP_PORT and
// returns its base URL.
func runSample(t testing.TB, sample string) (string, *proc) {
	t.Helper()
	port := freePort(t)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", "samples/"+sample)
	return "http://127.0.0.1:" + strconv.Itoa(port), p
}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t testing.TB, method, url, contentType, body string, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func bufioCopy(w *strings.Builder, resp *http.Response) (int64, error) {
	return io.Copy(w, resp.Body)
}

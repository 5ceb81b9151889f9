package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// logTail keeps the last bytes octo wrote, to show when it fails.
type logTail struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if over := l.buf.Len() - 16<<10; over > 0 {
		l.buf.Next(over)
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// listening finds the port in octo's "listening ... addr=http://host:port"
// log line.
var listening = regexp.MustCompile(`msg=listening .*addr=http://[^\s]*:(\d+)`)

// octoProc is a running server process: octo, or the baseline with -serve-raw.
type octoProc struct {
	name   string
	cmd    *exec.Cmd
	logs   logTail
	exited chan struct{}
	err    error // from Wait, once exited is closed
	grace  time.Duration
	once   sync.Once
	// started is its resident size once started, before any request.
	started resident
}

// resident is a process's resident size as read once: kb is 0 when it could not be read,
// parts says what it is made of where that is known.
type resident struct {
	kb    int
	parts string
}

// readRSS reads p's resident size now (zero for nil: a server in this process).
func readRSS(p *octoProc) resident {
	if p == nil {
		return resident{}
	}
	kb, _ := residentKB(p.cmd.Process.Pid)
	return resident{kb, residentParts(p.cmd.Process.Pid)}
}

// startedRSS is p's resident size once started (zero for nil).
func startedRSS(p *octoProc) resident {
	if p == nil {
		return resident{}
	}
	return p.started
}

// settle is how long a started server is left alone before its resident size is read.
const settle = time.Second

// startOcto runs the binary with the sample on HTTP_PORT=0, so the kernel
// picks a free port and no other process can take it between a check and
// the bind; the port is read from octo's log. It waits until octo answers
// the measured call correctly; on error the process is already gone.
func startOcto(ctx context.Context, o options) (*octoProc, string, error) {
	if _, err := os.Stat(o.binary); err != nil {
		return nil, "", fmt.Errorf("octo binary: %w (run make build first)", err)
	}
	return startProcess(ctx, o, "octo", exec.Command(o.binary, "run", "--config", o.config))
}

// startProcess starts a server process and waits as startOcto does.
func startProcess(ctx context.Context, o options, name string, cmd *exec.Cmd) (*octoProc, string, error) {
	p := &octoProc{name: name, cmd: cmd, exited: make(chan struct{}), grace: o.stopGrace}
	p.cmd.Env = append(os.Environ(), "HTTP_PORT=0", "GOMAXPROCS="+strconv.Itoa(o.procs))
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	dieWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("starting octo: %w", err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()

	url, err := p.waitPort(ctx, o.startTimeout)
	if err == nil {
		// Started and not yet asked anything: octo hands back its start's memory a moment
		// after it serves (runtime/memtrim).
		time.Sleep(settle)
		p.started = readRSS(p)
		err = waitReady(ctx, url, p.exited, o.startTimeout)
	}
	if err != nil {
		_ = p.stop()
		return nil, "", fmt.Errorf("%s: %w (exit: %v)\n%s", name, err, p.err, p.logs.String())
	}
	return p, url, nil
}

func (p *octoProc) waitPort(ctx context.Context, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(p.logs.String()); m != nil {
			port, err := strconv.Atoi(m[1])
			if err != nil {
				return "", err
			}
			return loopbackURL(port), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-p.exited:
			return "", errors.New("exited before it listened")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("no listening line in its log after %s", timeout)
}

// alive reports whether octo is still running: answers that came while it
// was not cannot be its own.
func (p *octoProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop ends octo: SIGTERM, then SIGKILL after the grace period.
func (p *octoProc) stop() error {
	var err error
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(p.grace):
			_ = p.cmd.Process.Kill()
			<-p.exited
			err = fmt.Errorf("%s did not stop within %s and was killed", p.name, p.grace)
		}
	})
	return err
}

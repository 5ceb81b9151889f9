package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// stdio runs the server as a child process: one JSON-RPC message per line
// on its standard input and output (mcp-protocol.md §7.1).
type stdio struct {
	cmd    *exec.Cmd
	stdin  *os.File // a pipe of our own, so a write can be given a deadline
	wmu    sync.Mutex
	stderr *tail
	exited chan struct{} // closed once the process was waited for
}

// stopGrace is how long close waits after closing stdin, and again after
// SIGTERM, before the next step.
const stopGrace = 2 * time.Second

func startStdio(o Options, recv receiver, end func(error)) (conn, error) {
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Env = append(inherited(), o.Env...)
	cmd.Dir = o.Dir
	t := &stdio{cmd: cmd, stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	if o.Stderr != nil {
		cmd.Stderr = io.MultiWriter(t.stderr, o.Stderr)
	} else {
		cmd.Stderr = t.stderr
	}
	in, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin, t.stdin = in, w
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	in.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("starting %s: %w", o.Command[0], err)
	}
	go t.read(out, recv, end, o)
	return t, nil
}

// read hands each line to recv until the output ends, then waits for the
// process and ends the client with how it exited. A line over the limit
// or not JSON-RPC is skipped.
func (t *stdio) read(out io.Reader, recv receiver, end func(error), o Options) {
	lines := newLineReader(out, o.MaxMessageBytes)
	for {
		line, err := lines.line()
		if errors.Is(err, errLineTooLong) {
			o.Logger.Warn("skipped a line over the limit", "command", o.Command[0], "limit", o.MaxMessageBytes)
			continue
		}
		if err != nil {
			break
		}
		if len(line) == 0 {
			continue
		}
		if _, err := deliver(line, jsonrpc.ID{}, recv); err != nil {
			o.Logger.Warn("skipped a line of the server's output", "command", o.Command[0], "err", err)
		}
	}
	werr := t.cmd.Wait()
	close(t.exited)
	t.stdin.Close()
	why := "exited"
	if werr != nil {
		why = werr.Error()
	}
	if s := t.stderr.String(); s != "" {
		end(fmt.Errorf("the server process %s (%s); its last output on stderr: %q", o.Command[0], why, s))
		return
	}
	end(fmt.Errorf("the server process %s (%s)", o.Command[0], why))
}

// send writes one line; a server that does not read holds it only while
// ctx lasts.
func (t *stdio) send(ctx context.Context, msg []byte, _ jsonrpc.ID) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = t.stdin.SetWriteDeadline(time.Now()) })
	defer func() {
		if !stop() {
			_ = t.stdin.SetWriteDeadline(time.Time{})
		}
	}()
	line := make([]byte, 0, len(msg)+1)
	if _, err := t.stdin.Write(append(append(line, msg...), '\n')); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("writing to the server's input: %w", err)
	}
	return nil
}

// close ends the process as the protocol says: its input closed, then
// SIGTERM, then SIGKILL, each after a grace period or when ctx ends.
func (t *stdio) close(ctx context.Context) error {
	t.stdin.Close() // without wmu: a write blocked on a full pipe fails at once
	for _, next := range []func() error{
		func() error { return t.cmd.Process.Signal(syscall.SIGTERM) },
		t.cmd.Process.Kill,
	} {
		timer := time.NewTimer(stopGrace)
		select {
		case <-t.exited:
			timer.Stop()
			return nil
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
		_ = next()
	}
	<-t.exited
	return nil
}

// inheritedEnv are the variables a server started over stdio gets from the
// client's own environment, as the SDKs' stdio clients do: what a program
// needs to run, not the rest, which may hold the client's secrets.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR",
	"APPDATA", "LOCALAPPDATA", "PROGRAMFILES", "SYSTEMROOT", "TEMP", "USERPROFILE"}

func inherited() []string {
	var env []string
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/mcp"
)

// EnvApp names the program to start as the app instead of `octo app` from this binary (for
// tests, and for an app installed elsewhere). It is started with no arguments; like `octo app`,
// it finds the data folder in OCTO_DATA_DIR.
const EnvApp = "OCTO_APP"

// EnvDataDir is the data folder variable the started app gets.
const EnvDataDir = "OCTO_DATA_DIR"

// pollEvery is how often a start looks for the app's agent.json.
const pollEvery = 100 * time.Millisecond

// start starts the app, under the data folder's start lock so that bridges starting at the
// same time start one app, and waits for it to answer (see await). The bridge that holds the
// lock first starts it; the others, when their turn comes, find it running.
func (f *forwarder) start(ctx context.Context, dir string, c *call) (*appConn, *mcp.CallToolResult, error) {
	lock, err := lockStart(ctx, dir, c)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, notStarted(err), nil
	}
	defer func() {
		if err := lock.Unlock(); err != nil {
			f.log.Warn("letting go of the start lock", "err", err)
		}
	}()
	conn, err := f.dial(ctx, dir, c.agent)
	if err == nil {
		return conn, nil, nil
	}
	if conn, res, err := f.whenRunning(ctx, dir, c, err); conn != nil || res != nil || err != nil {
		return conn, res, err // started meanwhile, by another bridge or the user
	}
	exited, err := launch(dir)
	if err != nil {
		return nil, notStarted(err), nil
	}
	return f.await(ctx, dir, c, exited)
}

// lockStart takes the data folder's start lock, telling the agent it waits when that takes a
// while (another bridge is starting the app).
func lockStart(ctx context.Context, dir string, c *call) (*appdata.Lock, error) {
	type locked struct {
		lock *appdata.Lock
		err  error
	}
	got := make(chan locked, 1)
	go func() {
		l, err := appdata.LockStart(ctx, dir)
		got <- locked{l, err}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case l := <-got:
			return l.lock, l.err
		case <-tick.C:
			c.waiting(ctx, "Waiting while another agent starts Octo")
		}
	}
}

// launch starts the app, detached from this process (its own session, standard streams on the
// null device), so that it outlives the agent's session. exited yields how it ended.
func launch(dir string) (exited <-chan error, err error) {
	prog, args := os.Getenv(EnvApp), []string(nil)
	if prog == "" {
		if prog, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("cannot find the octo program: %w", err)
		}
		args = []string{"app"}
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), EnvDataDir+"="+dir)
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(prog), unwrapExec(err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reaped, so no zombie is left behind
	return done, nil
}

// unwrapExec keeps the reason of an exec failure without repeating the program's path.
func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// await waits for the started app to write agent.json and pass the handshake, telling the
// agent each second when the call asked for progress. An app that exits with a failure before
// it answers is not waited for; one that exits cleanly may have handed over to another process
// (a launcher), so its answer is still awaited.
func (f *forwarder) await(ctx context.Context, dir string, c *call, exited <-chan error) (*appConn, *mcp.CallToolResult, error) {
	deadline := time.NewTimer(f.wait)
	defer deadline.Stop()
	poll := time.NewTicker(pollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-deadline.C:
			return nil, mcp.ToolError(msgStartTimeout), nil
		case err := <-exited:
			exited = nil
			if err != nil {
				return nil, notStarted(fmt.Errorf("it exited: %w", err)), nil
			}
		case <-poll.C:
			if conn, err := f.dial(ctx, dir, c.agent); err == nil {
				return conn, nil, nil
			}
			c.waiting(ctx, "Starting Octo")
		}
	}
}

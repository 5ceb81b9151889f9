package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/mcp"
)

// forwarder hands the agent's tool calls to the app. It keeps one connection for every call of
// the session, made on the first call: to the running app, or to the app it starts, unless the
// user let agents work without the app (headless), when the tools run in this process until the
// app is open again.
type forwarder struct {
	dir  string        // the data folder setting: "" means appdata.DataDir's own choice
	wait time.Duration // how long a started app has to answer
	log  *slog.Logger

	turn chan struct{} // cap 1: held while connecting, so calls connect (or start the app) once

	// Under turn:
	conn         *appConn
	lost         bool // the connection closed; the next call tries it once more
	disconnected bool // the user disconnected this agent: every call hears so
	head         *headless

	closeOnce sync.Once
}

func newForwarder(dir string, wait time.Duration, log *slog.Logger) *forwarder {
	return &forwarder{dir: dir, wait: wait, log: log, turn: make(chan struct{}, 1)}
}

// Call runs one tool call: in the app, or in-process when headless. What keeps the call from
// the app is a result the agent reads (the messages in messages.go).
func (f *forwarder) Call(ctx context.Context, c call) (*mcp.CallToolResult, error) {
	conn, head, res, err := f.reach(ctx, &c)
	switch {
	case err != nil:
		return nil, err
	case res != nil:
		return res, nil
	case head != nil:
		return head.call(ctx, &c)
	}
	return conn.callTool(ctx, &c)
}

// reach finds what serves the call: the app's connection, or the headless tools; or says why
// there is neither (res), or gives up as ctx ends (err).
func (f *forwarder) reach(ctx context.Context, c *call) (conn *appConn, head *headless, res *mcp.CallToolResult, err error) {
	select {
	case f.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, nil, ctx.Err()
	}
	defer func() { <-f.turn }()
	if f.conn != nil && !f.conn.alive() {
		f.disconnected = f.disconnected || f.conn.wasDisconnected()
		f.conn, f.lost = nil, true
	}
	switch {
	case f.disconnected:
		return nil, nil, mcp.ToolError(msgDisconnected), nil
	case f.conn != nil:
		return f.conn, nil, nil, nil
	}
	dir, err := appdata.DataDir(f.dir)
	if err != nil {
		return nil, nil, notStarted(err), nil
	}
	conn, err = f.dial(ctx, dir, c.agent)
	switch {
	case err == nil:
		return f.connected(ctx, conn), nil, nil, nil
	case ctx.Err() != nil:
		return nil, nil, nil, ctx.Err()
	}
	if conn, res, err := f.whenRunning(ctx, dir, c, err); conn != nil || res != nil || err != nil {
		if conn != nil {
			conn = f.connected(ctx, conn)
		}
		return conn, nil, res, err
	}
	if f.lost { // the app went away between calls: say so once, then start it again
		f.lost = false
		return nil, nil, mcp.ToolError(msgClosedBetween), nil
	}
	if head, res := f.headless(ctx, dir); head != nil || res != nil {
		return nil, head, res, nil
	}
	conn, res, err = f.start(ctx, dir, c)
	if conn != nil {
		conn = f.connected(ctx, conn)
	}
	return conn, nil, res, err
}

// connected keeps conn for the calls to come; the app takes over from tools run headless.
func (f *forwarder) connected(ctx context.Context, conn *appConn) *appConn {
	f.conn, f.lost = conn, false
	f.dropHeadless(ctx)
	return conn
}

// dialTimeout bounds connecting to a running app: the handshake and initialize.
const dialTimeout = 10 * time.Second

// dial connects to the app that agent.json names and opens the MCP session as agent. A missing
// agent.json, a pid that is gone, a refused dial or a failed handshake all mean no app to use.
func (f *forwarder) dial(ctx context.Context, dir string, agent mcp.Implementation) (*appConn, error) {
	info, err := appdata.ReadInfo(dir)
	if err != nil {
		return nil, err
	}
	if !alive(info.PID) {
		return nil, errors.New("the app that wrote agent.json is not running")
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	nc, err := handshake.Dial(ctx, info)
	if err != nil {
		return nil, err
	}
	conn := newAppConn(nc, f.log)
	if err := conn.initialize(ctx, agent); err != nil {
		conn.close()
		return nil, err
	}
	return conn, nil
}

// startingFor bounds the wait for an app that holds the data folder but has no agent.json yet.
const startingFor = 5 * time.Second

// whenRunning serves a call that could not connect (dialErr says why) while an app holds the
// data folder: one starting has not written agent.json yet (one stopping has removed it), so
// the file is looked for again for a while; a busy app, or one that does not answer, is told
// to the agent as it is. Starting a second app, or working without the app beside it, would
// only make things worse. All nil when no app runs: it may be started, or worked without.
func (f *forwarder) whenRunning(ctx context.Context, dir string, c *call, dialErr error) (*appConn, *mcp.CallToolResult, error) {
	if busy := (*handshake.BusyError)(nil); errors.As(dialErr, &busy) {
		return nil, mcp.ToolError(fmt.Sprintf(msgBusy, busy.Reason)), nil
	}
	if running, err := appdata.AppRunning(dir); err != nil || !running {
		return nil, nil, nil
	}
	deadline := time.Now().Add(startingFor)
	for errors.Is(dialErr, appdata.ErrNoApp) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(pollEvery):
		}
		c.waiting(ctx, "Waiting for Octo to start")
		conn, err := f.dial(ctx, dir, c.agent)
		if err == nil {
			return conn, nil, nil
		}
		if running, _ := appdata.AppRunning(dir); !running {
			return nil, nil, nil // it stopped: it may be started again
		}
		dialErr = err
	}
	return nil, mcp.ToolError(fmt.Sprintf(msgUnreachable, strings.TrimRight(dialErr.Error(), "."))), nil
}

// Close lets go of the app's connection and of the tools run in-process.
func (f *forwarder) Close(ctx context.Context) error {
	var err error
	f.closeOnce.Do(func() {
		select {
		case f.turn <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
			return
		}
		defer func() { <-f.turn }()
		if f.conn != nil {
			f.conn.close()
		}
		if f.head != nil {
			err = f.head.close(ctx)
		}
	})
	return err
}

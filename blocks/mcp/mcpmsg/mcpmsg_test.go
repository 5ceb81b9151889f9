package mcpmsg_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
)

func newStdio(t *testing.T) *mcpmsg.Stdio {
	t.Helper()
	s := &mcp.Server{Info: mcp.Implementation{Name: "t", Version: "1"}}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	st := session.New(s, session.Options{})
	t.Cleanup(func() { st.Close() })
	return mcpmsg.NewStdio(st)
}

func event(t *testing.T, p *mcpmsg.Stdio, kind stdiomsg.Kind, session uint64, line string) (*runtime.Message, error) {
	t.Helper()
	var body []byte
	if line != "" {
		body = []byte(line)
	}
	ev := stdiomsg.Event{Kind: kind, Session: session}
	m := stdiomsg.NewMessage(body, ev)
	return p.Process(context.Background(), m, &ev)
}

func open(t *testing.T, p *mcpmsg.Stdio, session uint64) runtime.Stream {
	t.Helper()
	m, err := event(t, p, stdiomsg.Opened, session, "")
	if err != nil || m.Stream() == nil {
		t.Fatalf("Opened %d: %v", session, err)
	}
	return m.Stream()
}

func next(t *testing.T, s runtime.Stream) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := s.Next(ctx)
	return string(ev.Data), err
}

const initialize = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// Each session id is a session of its own: its lines are answered on its own stream, and one
// ending leaves the others be.
func TestSessionsAreToldApartByTheirID(t *testing.T) {
	p := newStdio(t)
	one, two := open(t, p, 1), open(t, p, 2)
	if _, err := event(t, p, stdiomsg.Opened, 2, ""); err == nil || runtime.ErrorOf(err).Kind != runtime.KindConflict {
		t.Fatalf("opening session 2 again: %v, want a conflict", err)
	}
	for _, s := range []struct {
		id     uint64
		stream runtime.Stream
		reqID  string
	}{{1, one, `"a"`}, {2, two, `"b"`}} {
		if _, err := event(t, p, stdiomsg.Line, s.id, strings.Replace(initialize, "%s", s.reqID, 1)); err != nil {
			t.Fatal(err)
		}
		if got, err := next(t, s.stream); err != nil || !strings.Contains(got, `"id":`+s.reqID) {
			t.Fatalf("session %d wrote %s, %v", s.id, got, err)
		}
	}
	if _, err := event(t, p, stdiomsg.Ended, 1, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := next(t, one); !errors.Is(err, io.EOF) {
		t.Fatalf("after Ended, session 1 wrote %q, %v; want its end", got, err)
	}
	one.(io.Closer).Close()
	if _, err := event(t, p, stdiomsg.Line, 2, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); err != nil {
		t.Fatal(err)
	}
	if got, err := next(t, two); err != nil || got != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Fatalf("session 2 after session 1 ended: %s, %v", got, err)
	}
	if _, err := event(t, p, stdiomsg.Line, 3, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); runtime.ErrorOf(err).Kind != runtime.KindInvalid {
		t.Fatalf("a line for a session never opened: %v, want invalid", err)
	}
	again := open(t, p, 1) // closed streams free their id
	again.(io.Closer).Close()
	two.(io.Closer).Close()
}

package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

type blockFunc func(context.Context, *runtime.Message) (*runtime.Message, error)

func (f blockFunc) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	return f(ctx, m)
}

// greeting is a session's Opened stream: "hello N", then what is sent on more, until end closes
// it, or until it is drained ("drained N", then the end).
type greeting struct {
	id                 uint64
	said               bool
	done               bool // the drained line was written: the stream ends
	more               chan string
	bye                chan struct{}
	drained            chan struct{}
	byeOnce, drainOnce sync.Once
}

func newGreeting(id uint64) *greeting {
	return &greeting{id: id, more: make(chan string, 8), bye: make(chan struct{}), drained: make(chan struct{})}
}

func (g *greeting) Next(ctx context.Context) (runtime.Event, error) {
	if !g.said {
		g.said = true
		return runtime.Event{Data: fmt.Appendf(nil, "hello %d", g.id)}, nil
	}
	if g.done {
		return runtime.Event{}, io.EOF
	}
	select {
	case s := <-g.more:
		return runtime.Event{Data: []byte(s)}, nil
	case <-g.bye:
		return runtime.Event{}, io.EOF
	case <-g.drained:
		g.done = true
		return runtime.Event{Data: fmt.Appendf(nil, "drained %d", g.id)}, nil
	case <-ctx.Done():
		return runtime.Event{}, ctx.Err()
	}
}

func (g *greeting) end()                  { g.byeOnce.Do(func() { close(g.bye) }) }
func (g *greeting) Drain(context.Context) { g.drainOnce.Do(func() { close(g.drained) }) }

var (
	sessionsMu sync.Mutex
	sessions   = map[uint64]*greeting{}
	ended      = map[uint64]bool{}
)

// The test-agent block greets each session, answers its lines, and lets a line end it.
func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-agent", Summary: "test", Transports: []string{stdiomsg.Transport},
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return blockFunc(answer), nil })})
}

func answer(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	ev, _ := stdiomsg.From(m)
	sessionsMu.Lock()
	g := sessions[ev.Session]
	sessionsMu.Unlock()
	switch {
	case ev.Kind == stdiomsg.Opened:
		g = newGreeting(ev.Session)
		sessionsMu.Lock()
		sessions[ev.Session] = g
		sessionsMu.Unlock()
		m.SetStream(g)
	case ev.Kind == stdiomsg.Ended:
		sessionsMu.Lock()
		ended[ev.Session] = true
		sessionsMu.Unlock()
		g.end()
		m.ClearBody()
	case ev.TooLong:
		m.SetRaw(fmt.Appendf(nil, "too long for %d", ev.Limit))
	default:
		switch line := string(m.Raw()); line {
		case "who":
			m.SetRaw(fmt.Appendf(nil, "session %d", ev.Session))
		case "push":
			g.more <- "pushed"
			m.ClearBody()
		case "stream":
			m.SetStream(&lines{items: []string{"one", "two"}})
		case "big":
			m.SetRaw([]byte(strings.Repeat("b", 32<<20)))
		case "fail":
			return nil, errors.New("boom")
		case "bye":
			g.end()
			m.ClearBody()
		default:
			m.SetRaw([]byte("got " + line))
		}
	}
	return m, nil
}

type lines struct{ items []string }

func (l *lines) Next(context.Context) (runtime.Event, error) {
	if len(l.items) == 0 {
		return runtime.Event{}, io.EOF
	}
	s := l.items[0]
	l.items = l.items[1:]
	return runtime.Event{Data: []byte(s)}, nil
}

package stdio_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type blockFunc func(context.Context, *runtime.Message) (*runtime.Message, error)

func (f blockFunc) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	return f(ctx, m)
}

// events is a stream of fixed lines.
type events struct{ lines []string }

func (e *events) Next(ctx context.Context) (runtime.Event, error) {
	if len(e.lines) == 0 {
		return runtime.Event{}, io.EOF
	}
	l := e.lines[0]
	e.lines = e.lines[1:]
	return runtime.Event{Data: []byte(l)}, nil
}

var (
	endsMu sync.Mutex
	ends   int
)

// The test block answers OPEN with a greeting stream, each line by what it
// asks for, and counts END.
func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-lines", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			ev, _ := stdiomsg.From(m)
			switch ev.Kind {
			case stdiomsg.Opened:
				m.SetStream(&events{lines: []string{"hello"}})
			case stdiomsg.Ended:
				endsMu.Lock()
				ends++
				endsMu.Unlock()
				m.ClearBody()
			case stdiomsg.Line:
				switch line := string(m.Raw()); {
				case ev.TooLong:
					m.SetRaw(fmt.Appendf(nil, "too long for %v", ev.Limit))
				case line == "stream":
					m.SetStream(&events{lines: []string{"one", "two"}})
				case line == "value":
					m.SetBody(map[string]any{"text": "a\nb"})
				case line == "fail":
					return nil, errors.New("boom")
				case line == "quiet":
					m.ClearBody()
				default:
					m.SetRaw([]byte("got " + line))
				}
			}
			return m, nil
		}), nil
	})})
}

// owing is an OPEN stream that owes one last line: it writes it and ends
// once drained, and not before.
type owing struct {
	drained chan struct{}
	once    sync.Once
	done    bool
}

func (o *owing) Next(ctx context.Context) (runtime.Event, error) {
	if o.done {
		return runtime.Event{}, io.EOF
	}
	select {
	case <-o.drained:
		o.done = true
		return runtime.Event{Data: []byte("the last answer")}, nil
	case <-ctx.Done():
		return runtime.Event{}, ctx.Err()
	}
}

func (o *owing) Drain(context.Context) { o.once.Do(func() { close(o.drained) }) }

// The draining block answers OPEN with an owing stream and lines with
// nothing.
func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-owing", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			if ev, _ := stdiomsg.From(m); ev.Kind == stdiomsg.Opened {
				m.SetStream(&owing{drained: make(chan struct{})})
			} else {
				m.ClearBody()
			}
			return m, nil
		}), nil
	})})
}

func build(t *testing.T, yaml string) (*runtime.Service, error) {
	t.Helper()
	return buildLogged(t, yaml, io.Discard)
}

func buildLogged(t *testing.T, yaml string, log io.Writer) (*runtime.Service, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, nil)
	if err != nil {
		return nil, err
	}
	return runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// piped is a started service whose stdio connector reads and writes pipes.
type piped struct {
	svc  *runtime.Service
	in   *io.PipeWriter // what the client writes
	out  *io.PipeReader // what the client reads
	outW *io.PipeWriter
}

func startPiped(t *testing.T, yaml string, log io.Writer) *piped {
	t.Helper()
	svc, err := buildLogged(t, yaml, log)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if err := svc.Start(stdio.WithStreams(context.Background(), inR, outW)); err != nil {
		t.Fatal(err)
	}
	return &piped{svc, inW, outR, outW}
}

func (p *piped) done() <-chan struct{} { return p.svc.Connector("io").(*stdio.Connector).Done() }

const oneFlow = `
connectors: [ { name: io, type: stdio, settings: { maxLineBytes: 16 } } ]
flows: [ { name: lines, source: { connector: io }, process: [ { type: test-lines } ] } ]
`

func TestLinesGoToTheFlowAndItsAnswersComeBackAsLines(t *testing.T) {
	endsMu.Lock()
	ends = 0 // counted afresh on each run (-count)
	endsMu.Unlock()
	p := startPiped(t, oneFlow, io.Discard)
	defer p.svc.Stop(context.Background())
	out := bufio.NewReader(p.out)
	read := func() string {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(line, "\n")
	}
	if got := read(); got != "hello" {
		t.Fatalf("the OPEN stream wrote %q", got)
	}
	cases := []struct {
		name, send string
		want       []string
	}{
		{"a line is answered with one line", "ping\n", []string{"got ping"}},
		{"a CRLF line arrives without its CR", "crlf\r\n", []string{"got crlf"}},
		{"a stream answer is one line per event", "stream\n", []string{"one", "two"}},
		{"a JSON value answer is compacted to one line", "value\n", []string{`{"text":"a\nb"}`}},
		{"a line over maxLineBytes reaches the flow as 413 without a body, with the limit", strings.Repeat("x", 40) + "\n", []string{"too long for 16"}},
		{"a failing flow and an empty answer write nothing", "fail\nquiet\nnext\n", []string{"got next"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := io.WriteString(p.in, c.send); err != nil {
				t.Fatal(err)
			}
			for _, want := range c.want {
				if got := read(); got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			}
		})
	}
	t.Run("the end of input reaches the flow and the connector is done", func(t *testing.T) {
		p.in.Close()
		select {
		case <-p.done():
		case <-time.After(5 * time.Second):
			t.Fatal("not done after the input ended")
		}
		endsMu.Lock()
		defer endsMu.Unlock()
		if ends != 1 {
			t.Fatalf("END reached the flow %d times", ends)
		}
	})
}

func TestTheConnectorServesOneFlow(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"a second flow is refused", `
connectors: [ { name: io, type: stdio } ]
flows:
  - { name: a, source: { connector: io }, process: [ { type: test-lines } ] }
  - { name: b, source: { connector: io }, process: [ { type: test-lines } ] }
`, `already serves flow "a"`},
		{"a stall timeout must be positive", `
connectors: [ { name: io, type: stdio, settings: { stallTimeout: 0s } } ]
flows: [ { name: a, source: { connector: io }, process: [ { type: test-lines } ] } ]
`, "stallTimeout must be positive"},
		{"a line limit must be positive", `
connectors: [ { name: io, type: stdio, settings: { maxLineBytes: 0 } } ]
flows: [ { name: a, source: { connector: io }, process: [ { type: test-lines } ] } ]
`, "maxLineBytes must be positive"},
		{"source settings are refused", `
connectors: [ { name: io, type: stdio } ]
flows: [ { name: a, source: { connector: io, settings: { path: /x } }, process: [ { type: test-lines } ] } ]
`, `unknown key "path"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := build(t, c.yaml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestStopEndsTheConnectorWhileInputIsOpen(t *testing.T) {
	p := startPiped(t, oneFlow, io.Discard)
	go io.Copy(io.Discard, p.out)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	p.outW.Close()
	select {
	case <-p.done():
	default:
		t.Fatal("not done after Stop")
	}
}

// owingFlow is a flow whose stream owes a last answer, on a connector
// that gives the client stall to take each line.
func owingFlow(stall string) string {
	return `
connectors: [ { name: io, type: stdio, settings: { stallTimeout: ` + stall + ` } } ]
flows: [ { name: lines, source: { connector: io }, process: [ { type: test-owing } ] } ]
`
}

func TestStopWritesWhatADrainedStreamStillOwes(t *testing.T) {
	p := startPiped(t, owingFlow("1m"), io.Discard) // the reader below may be slow to run, not stalled
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(p.out)
		got <- string(b)
	}()
	p.in.Close()
	select {
	case <-p.done():
	case <-time.After(5 * time.Second):
		t.Fatal("not done when the input ended")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	p.outW.Close()
	if out := <-got; out != "the last answer\n" {
		t.Fatalf("wrote %q", out)
	}
}

func TestAWriteTheClientDoesNotTakeEndsTheConnector(t *testing.T) {
	var logs runtimetest.Buffer
	p := startPiped(t, owingFlow("100ms"), &logs) // nothing reads: it stalls for sure
	defer p.in.Close()
	// Draining makes the stream write a line nobody reads.
	if err := p.svc.Connector("io").(*stdio.Connector).Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "standard output stalled: the client has read nothing for 100ms; ending the session") {
		t.Fatalf("log:\n%s", logs.String())
	}
	if _, err := io.ReadAll(io.LimitReader(p.out, int64(len("the last answer\n")))); err != nil {
		t.Fatal(err)
	}
	p.outW.Close()
	_ = p.svc.Stop(context.Background())
}

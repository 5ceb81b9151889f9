package stdio_test

import (
	"bufio"
	"context"
	"errors"
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
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
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
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-lines", Summary: "test", Build: func(*runtime.Build) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			switch m.Meta.Method {
			case stdio.MethodOpen:
				m.SetStream(&events{lines: []string{"hello"}})
			case stdio.MethodEnd:
				endsMu.Lock()
				ends++
				endsMu.Unlock()
				m.ClearBody()
			case stdio.MethodLine:
				switch line := string(m.Raw()); {
				case m.Meta.Status == 413:
					m.SetRaw([]byte("too long"))
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
	}})
}

func build(t *testing.T, yaml string) (*runtime.Service, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, nil)
	if err != nil {
		return nil, err
	}
	return runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

const oneFlow = `
connectors: [ { name: io, type: stdio, settings: { maxLineBytes: 16 } } ]
flows: [ { name: lines, source: { connector: io }, process: [ { type: test-lines } ] } ]
`

func TestLinesGoToTheFlowAndItsAnswersComeBackAsLines(t *testing.T) {
	svc, err := build(t, oneFlow)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if err := svc.Start(stdio.WithStreams(context.Background(), inR, outW)); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(context.Background())
	out := bufio.NewReader(outR)
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
		{"a line over maxLineBytes reaches the flow as 413 without a body", strings.Repeat("x", 40) + "\n", []string{"too long"}},
		{"a failing flow and an empty answer write nothing", "fail\nquiet\nnext\n", []string{"got next"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := io.WriteString(inW, c.send); err != nil {
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
		inW.Close()
		select {
		case <-svc.Connector("io").(*stdio.Connector).Done():
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
	svc, err := build(t, oneFlow)
	if err != nil {
		t.Fatal(err)
	}
	inR, _ := io.Pipe()
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	if err := svc.Start(stdio.WithStreams(context.Background(), inR, outW)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	select {
	case <-svc.Connector("io").(*stdio.Connector).Done():
	default:
		t.Fatal("not done after Stop")
	}
}

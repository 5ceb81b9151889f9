package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// serveStdio is what the stdio connector and mcp-mock do with a
// Stdio, over plain streams: each line read goes to Line, each event
// is written as a line. At the end of in the session finishes its calls;
// when ctx ends it drains at once. It returns nil, the read or write error,
// ctx.Err() or ErrClosed (the session ended under it).
func serveStdio(ctx context.Context, st *Front, in io.Reader, out io.Writer) error {
	ss, err := st.OpenStdio()
	if err != nil {
		return err
	}
	werr := make(chan error, 1)
	go func() {
		defer ss.Close()
		for {
			ev, err := ss.Next(context.Background())
			if err != nil {
				werr <- nil
				return
			}
			if _, err := out.Write(append(bytes.Clone(ev.Data), '\n')); err != nil {
				werr <- err
				return
			}
		}
	}()
	rerr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				ss.Line(ctx, bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'}))
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				rerr <- err
				return
			}
		}
	}()
	var result error
	select {
	case result = <-rerr:
		ss.EndInput()
	case <-ctx.Done():
		ss.Drain(ctx)
		result = ctx.Err()
	case <-ss.s.Done():
		result = ErrClosed
	}
	if e := <-werr; e != nil {
		return e
	}
	return result
}

// pipeClient drives a stdio session through io.Pipe, as a host process would.
type pipeClient struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(t *testing.T, ctx context.Context, st *Front) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeClient{in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		p.done <- serveStdio(ctx, st, inR, outW)
		outW.Close()
		inR.Close()
	}()
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			p.lines <- l
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *pipeClient) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(p.in, s); err != nil {
		t.Fatal(err)
	}
}

// next returns the next line written, newline included.
func (p *pipeClient) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("stdout closed early")
		}
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no line within 5s")
	}
	return ""
}

func (p *pipeClient) exit(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("serveStdio did not return")
	}
	return nil
}

func TestStdio(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	s.Handlers["x/pretty"] = func(context.Context, *jsonrpc.Request, *mcp.RequestContext) (any, error) {
		return json.RawMessage("{\n  \"a\": [1,\n 2]\n}"), nil
	}
	tools.asked = make(chan error, 1)
	st := New(s, Options{})
	defer st.Close()
	p := startStdio(t, context.Background(), st)
	big := strings.Repeat("x", 100<<10)
	steps := []struct {
		name, send string
		want       []string
	}{
		{"a request before initialize is refused", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: the session is not initialized; send initialize first"}}`}},
		{"blank lines are skipped and initialize is answered", "\n \n" + fmt.Sprintf(initBody, "2025-06-18", `{"elicitation":{}}`) + "\n",
			[]string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"mock","version":"1.0.0"}}}`}},
		{"a CRLF line is read", `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n",
			[]string{`{"jsonrpc":"2.0","id":2,"result":{}}`}},
		{"a line over 64 KiB is read whole", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}}}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"s\":\"` + big + `\"}"}]}}`}},
		{"malformed JSON is -32700 without an id", "{oops\n",
			[]string{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid character 'o' looking for beginning of object key string at offset 2"}}`}},
		{"indented JSON from a handler stays on one line", `{"jsonrpc":"2.0","id":4,"method":"x/pretty"}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":4,"result":{"a":[1,2]}}`}},
		{"progress comes before the result", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"t"}}}` + "\n",
			[]string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":3,"message":"step 1"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":3,"message":"step 2"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":3,"total":3,"message":"step 3"}}`,
				`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"progressed"}]}}`,
			}},
		{"the provider sees a stdio session", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"session"}}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"stdio 2025-06-18 raw elicitation=true"}]}}`}},
	}
	for _, tt := range steps {
		t.Run(tt.name, func(t *testing.T) {
			p.send(t, tt.send)
			for _, w := range tt.want {
				if got := p.next(t); got != w+"\n" {
					if len(got) > 300 {
						got = got[:300] + "…"
					}
					t.Fatalf("got  %s\nwant %.300s", got, w)
				}
			}
		})
	}
	t.Run("a question is a line and so is its answer", func(t *testing.T) {
		p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"elicit"}}`+"\n")
		if got := p.next(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create"`) {
			t.Fatalf("got %s", got)
		}
		p.send(t, `{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}`+"\n")
		if err := <-tools.asked; err != nil {
			t.Fatal(err)
		}
		if got := p.next(t); got != `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"answer: {\"action\":\"cancel\"}"}]}}`+"\n" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("list_changed is written as a line", func(t *testing.T) {
		st.ListChanged("resources")
		if got := p.next(t); got != `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`+"\n" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("at the end of input the calls in flight finish and are answered", func(t *testing.T) {
		p.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"gated"}}`+"\n"+
			`{"jsonrpc":"2.0","id":9,"method":"ping"}`+"\n")
		if got := p.next(t); got != `{"jsonrpc":"2.0","id":9,"result":{}}`+"\n" {
			t.Fatalf("got %s", got)
		}
		p.in.Close()
		close(tools.gate)
		if got := p.next(t); got != `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"opened"}]}}`+"\n" {
			t.Fatalf("got %s", got)
		}
		if err := p.exit(t); err != nil {
			t.Fatalf("serveStdio = %v", err)
		}
		for l := range p.lines {
			t.Fatalf("written after the last answer: %s", l)
		}
	})
}

func TestStdioEnds(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	tests := []struct {
		name string
		stop func(st *Front, cancel context.CancelFunc)
		want error
		// the answer to the call in flight, "" for none
		answer string
	}{
		{"a cancelled context answers the call in flight with an error", func(_ *Front, cancel context.CancelFunc) { cancel() }, context.Canceled,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the server is shutting down"}}`},
		{"Close ends the session at once", func(st *Front, _ context.CancelFunc) { st.Close() }, ErrClosed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := New(s, Options{})
			defer st.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := startStdio(t, ctx, st)
			p.send(t, fmt.Sprintf(initBody, "2025-11-25", "{}")+"\n")
			p.next(t)
			p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`+"\n")
			<-tools.started
			tt.stop(st, cancel)
			<-tools.cancelled
			if tt.answer != "" {
				if got := p.next(t); got != tt.answer+"\n" {
					t.Fatalf("got %s", got)
				}
			}
			if err := p.exit(t); !errors.Is(err, tt.want) {
				t.Fatalf("serveStdio = %v, want %v", err, tt.want)
			}
			for l := range p.lines {
				t.Fatalf("written after the end: %s", l)
			}
		})
	}
	t.Run("a draining session answers new requests with an error", func(t *testing.T) {
		st := New(s, Options{})
		defer st.Close()
		ss, err := st.OpenStdio()
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ss.Line(ctx, []byte(fmt.Sprintf(initBody, "2025-11-25", "{}")))
		ss.Line(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gated"}}`))
		ss.Drain(ctx)
		ss.Line(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		tools.gate <- struct{}{}
		var got []string
		for {
			ev, err := ss.Next(ctx)
			if err != nil {
				break
			}
			got = append(got, string(ev.Data))
		}
		want := []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: the server is shutting down"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"opened"}]}}`}
		if len(got) != 3 || got[1] != want[0] || got[2] != want[1] {
			t.Fatalf("got %q\nwant initialize, then %q", got, want)
		}
	})
	t.Run("a closed server refuses a new stdio session", func(t *testing.T) {
		st := New(s, Options{})
		st.Close()
		if _, err := st.OpenStdio(); !errors.Is(err, ErrClosed) {
			t.Fatalf("OpenStdio = %v", err)
		}
	})
	t.Run("a failing stdout ends the session", func(t *testing.T) {
		st := New(s, Options{})
		defer st.Close()
		inR, inW := io.Pipe()
		defer inW.Close()
		done := make(chan error, 1)
		go func() { done <- serveStdio(context.Background(), st, inR, failWriter{}) }()
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "pipe is gone") {
				t.Fatalf("serveStdio = %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("serveStdio did not return")
		}
		inR.Close()
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("pipe is gone") }

// FuzzStdio feeds arbitrary bytes to a stdio session: whatever comes in,
// the server must not panic and must write only whole JSON lines.
func FuzzStdio(f *testing.F) {
	for _, seed := range []string{
		fmt.Sprintf(initBody, "2025-03-26", "{}") + "\n" + `[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n",
		"{\n}\n[]\nnull\n\"x\"\n",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":1}}`,
	} {
		f.Add([]byte(seed))
	}
	s, _ := newStatefulServer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		st := New(s, Options{AllowBatch: true})
		defer st.Close()
		var out strings.Builder
		if err := serveStdio(context.Background(), st, strings.NewReader(string(in)), &out); err != nil {
			t.Fatal(err)
		}
		for l := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("wrote a line that is not JSON: %q", l)
			}
		}
	})
}

// 2026-07-28 on a stdio pipe, beside the older revisions and chosen per message as over HTTP: a
// request naming it in its _meta needs no initialize and is answered as the revision says; the
// same pipe then initializes a 2025 session, whose requests are served as before; a listen
// stream, which is HTTP's, is -32601, and a stdio discover promises no list changes.
func TestStdioSpeaks2026BesideTheOlderRevisions(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	st := New(s, Options{})
	defer st.Close()
	p := startStdio(t, context.Background(), st)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, step := range []struct{ name, send, want string }{
		{"server/discover before any initialize", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`"supportedVersions":["2026-07-28"`},
		{"a call with its revision in _meta", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"a\":1}"}]}}`},
		{"a listen stream is HTTP's", `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{},` + meta + `}}`,
			`"code":-32601`},
		{"a revision the server does not serve per request is named", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`"message":"Invalid Request: the session is not initialized; send initialize first"`},
		{"the older revision initializes on the same pipe", fmt.Sprintf(initBody, "2025-11-25", `{}`), `"protocolVersion":"2025-11-25"`},
	} {
		t.Run(step.name, func(t *testing.T) {
			p.send(t, step.send+"\n")
			if got := p.next(t); !strings.Contains(got, step.want) {
				t.Fatalf("got %s\nwant one holding %s", got, step.want)
			}
		})
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"b":2}}}`+"\n")
	if got := p.next(t); got != `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"b\":2}"}]}}`+"\n" {
		t.Fatalf("a 2025-11-25 call after: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{`+meta+`}}`+"\n")
	if got := p.next(t); strings.Contains(got, `"listChanged":true`) {
		t.Fatalf("a stdio discover promises list changes: %s", got)
	}
}

// On a pipe that speaks 2026-07-28 and never initialized, a request the revision sends without
// _meta (logging/setLevel) is the revision's too: answered, and the level kept for the pipe.
func TestStdioKeepsA2026ClientsLogLevel(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	st := New(s, Options{})
	defer st.Close()
	p := startStdio(t, context.Background(), st)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`+"\n")
	p.next(t)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}`+"\n")
	if got := p.next(t); got != `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}`+"\n" {
		t.Fatalf("setLevel: %s", got)
	}
}

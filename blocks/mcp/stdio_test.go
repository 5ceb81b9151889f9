package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// pipeClient drives ServeStdio through io.Pipe, as a host process would.
type pipeClient struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(t *testing.T, ctx context.Context, st *Stateful) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeClient{in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		p.done <- st.ServeStdio(ctx, inR, outW)
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
		t.Fatal("ServeStdio did not return")
	}
	return nil
}

func TestStdio(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	s.Handlers["x/pretty"] = func(context.Context, *Request, *RequestContext) (any, error) {
		return json.RawMessage("{\n  \"a\": [1,\n 2]\n}"), nil
	}
	tools.asked = make(chan error, 1)
	st := NewStateful(s, StatefulOptions{})
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
	t.Run("stdin EOF cancels what is in flight and returns nil", func(t *testing.T) {
		p.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"block"}}`+"\n")
		<-tools.started
		p.in.Close()
		<-tools.cancelled
		if err := p.exit(t); err != nil {
			t.Fatalf("ServeStdio = %v", err)
		}
		for l := range p.lines {
			t.Fatalf("written after EOF: %s", l)
		}
	})
}

func TestStdioEnds(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	tests := []struct {
		name string
		stop func(st *Stateful, cancel context.CancelFunc)
		want error
	}{
		{"a cancelled context returns its error", func(_ *Stateful, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"Close returns ErrClosed", func(st *Stateful, _ context.CancelFunc) { st.Close() }, ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStateful(s, StatefulOptions{})
			defer st.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := startStdio(t, ctx, st)
			p.send(t, fmt.Sprintf(initBody, "2025-11-25", "{}")+"\n")
			p.next(t)
			tt.stop(st, cancel)
			if err := p.exit(t); !errors.Is(err, tt.want) {
				t.Fatalf("ServeStdio = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("a closed server refuses a new stdio session", func(t *testing.T) {
		st := NewStateful(s, StatefulOptions{})
		st.Close()
		if err := st.ServeStdio(context.Background(), strings.NewReader(""), io.Discard); !errors.Is(err, ErrClosed) {
			t.Fatalf("ServeStdio = %v", err)
		}
	})
	t.Run("a failing stdout ends the session", func(t *testing.T) {
		st := NewStateful(s, StatefulOptions{})
		defer st.Close()
		inR, inW := io.Pipe()
		defer inW.Close()
		done := make(chan error, 1)
		go func() { done <- st.ServeStdio(context.Background(), inR, failWriter{}) }()
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "pipe is gone") {
				t.Fatalf("ServeStdio = %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("ServeStdio did not return")
		}
		inR.Close()
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("pipe is gone") }

func TestReadLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     []string // "!" marks a too-long line
	}{
		{"lines lose their LF or CRLF", "a\nb\r\nc\n", 10, []string{"a", "b", "c"}},
		{"the last line needs no newline", "a\nb", 10, []string{"a", "b"}},
		{"a line over the limit is skipped, the next is read", "0123456789AB\nok\n", 10, []string{"!", "ok"}},
		{"a line at the limit is kept", "0123456789\r\n", 10, []string{"0123456789"}},
		{"a line longer than the buffer is joined", strings.Repeat("z", 40) + "\n", 100, []string{strings.Repeat("z", 40)}},
		{"a lone CR stays inside a line", "a\rb\n", 10, []string{"a\rb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			for {
				data, tooLong, err := readLine(r, tt.max)
				switch {
				case tooLong:
					got = append(got, "!")
				case len(data) > 0 || err == nil:
					got = append(got, string(data))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

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
		st := NewStateful(s, StatefulOptions{AllowBatch: true})
		defer st.Close()
		var out strings.Builder
		if err := st.ServeStdio(context.Background(), strings.NewReader(string(in)), &out); err != nil {
			t.Fatal(err)
		}
		for l := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("wrote a line that is not JSON: %q", l)
			}
		}
	})
}

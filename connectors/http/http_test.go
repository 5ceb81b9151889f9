package http_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

// testBlocks answer with what the routing tests need: an empty 202, a
// stream of events, and a failure.
func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-accept", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			m.ClearBody()
			ex, _ := httpmsg.From(m)
			ex.Status = 202
			return m, nil
		}), nil
	})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-stream", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
			m.SetStream(&ticker{})
			return m, nil
		}), nil
	})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-fail", Summary: "test", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
		return blockFunc(func(context.Context, *runtime.Message) (*runtime.Message, error) {
			return nil, io.ErrUnexpectedEOF // an internal detail that must not leak
		}), nil
	})})
}

type blockFunc func(context.Context, *runtime.Message) (*runtime.Message, error)

func (f blockFunc) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	return f(ctx, m)
}

// ticker sends a numbered event every 10ms until its context ends.
type ticker struct{ n int }

func (t *ticker) Next(ctx context.Context) (runtime.Event, error) {
	select {
	case <-ctx.Done():
		return runtime.Event{}, ctx.Err()
	case <-time.After(10 * time.Millisecond):
		t.n++
		return runtime.Event{ID: string(rune('0' + t.n%10)), Name: "tick", Data: []byte("line one\nline two")}, nil
	}
}

const routes = `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxBodyBytes: 64 } }
flows:
  - name: echo
    source: { connector: api, settings: { path: /echo, methods: [post, PUT] } }
    process: []
  - name: accept
    source: { connector: api, settings: { paths: [/accept, /accepted] } }
    process: [ { type: test-accept } ]
  - name: stream
    source: { connector: api, settings: { path: /stream } }
    process: [ { type: test-stream } ]
  - name: fail
    source: { connector: api, settings: { path: /fail } }
    process: [ { type: test-fail } ]
`

func start(t *testing.T, yaml string) (string, *runtime.Service) {
	t.Helper()
	addr, svc, _ := startLogged(t, yaml)
	return addr, svc
}

func TestRequestsAreRoutedByPathAndMethod(t *testing.T) {
	base, _ := start(t, routes)
	cases := []struct {
		name, method, path, body string
		status                   int
		want, allow              string
	}{
		{"a POST on a route is answered by its flow", "POST", "/echo", `{"a":1}`, 200, `{"a":1}`, ""},
		{"methods are matched without regard to case", "PUT", "/echo", `[1]`, 200, `[1]`, ""},
		{"an unlisted method is a 405 naming the allowed ones", "DELETE", "/echo", ``, 405, `{"error":"method DELETE is not allowed on /echo; allowed: POST, PUT"}`, "POST, PUT"},
		{"an unknown path is a 404", "POST", "/nope", `{}`, 404, `{"error":"no route for /nope"}`, ""},
		{"a body over the limit is a 413", "POST", "/echo", strings.Repeat("x", 65), 413, `{"error":"request body is larger than 64 bytes"}`, ""},
		{"an empty 202 is written without a body", "POST", "/accept", `{}`, 202, ``, ""},
		{"every path a source lists reaches its flow", "POST", "/accepted", `{}`, 202, ``, ""},
		{"a block failure is a 500 without internals", "GET", "/fail", ``, 500, `{"error":"internal error"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || string(b) != c.want {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, b, c.status, c.want)
			}
			if resp.Header.Get("Allow") != c.allow {
				t.Fatalf("Allow = %q, want %q", resp.Header.Get("Allow"), c.allow)
			}
		})
	}
}

func TestAStreamIsWrittenAsServerSentEventsAndEndsOnStop(t *testing.T) {
	base, svc := start(t, routes)
	resp, err := http.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	r := bufio.NewReader(resp.Body)
	var lines []string
	for len(lines) < 5 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimRight(line, "\n"))
	}
	want := []string{"id: 1", "event: tick", "data: line one", "data: line two", ""}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", lines, want)
	}
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		stopped <- svc.Stop(ctx)
	}()
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("stream did not end cleanly: %v", err)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("stop: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("stop waited on an open stream")
	}
}

// A body is read whole whatever its size, announced by Content-Length (read into a buffer of
// that size when it is small) or chunked, and one over maxBodyBytes is a 413 either way.
func TestBodiesOfEverySizeAreReadWhole(t *testing.T) {
	base, _ := start(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxBodyBytes: 100000 } }
flows:
  - name: echo
    source: { connector: api, settings: { path: /echo } }
    process: []
`)
	for _, size := range []int{1, 2, 511, 512, 513, 16<<10 - 1, 16 << 10, 16<<10 + 1, 100000, 100001} {
		body := strings.Repeat("x", size)
		for _, chunked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d bytes, chunked %v", size, chunked), func(t *testing.T) {
				var r io.Reader = strings.NewReader(body)
				if chunked {
					r = io.MultiReader(r) // no length known: the client sends it chunked
				}
				resp, err := http.Post(base+"/echo", "text/plain", r)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				if size > 100000 {
					if resp.StatusCode != http.StatusRequestEntityTooLarge {
						t.Fatalf("got %d, want 413", resp.StatusCode)
					}
					return
				}
				if resp.StatusCode != 200 || string(got) != body {
					t.Fatalf("got %d and %d bytes back, want 200 and %d", resp.StatusCode, len(got), size)
				}
			})
		}
	}
}

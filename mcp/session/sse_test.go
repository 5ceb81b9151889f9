package session

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/stream"
)

// legacy is a raw 2024-11-05 HTTP+SSE client.
type legacy struct {
	f        *front
	endpoint string
	evs      <-chan sseEvent
	resp     *http.Response
}

func (f *front) legacy(t *testing.T) *legacy {
	t.Helper()
	resp := f.do(t, "GET", "/sse", "", "Accept", "text/event-stream")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /sse: %d %s", resp.StatusCode, readAll(t, resp))
	}
	l := &legacy{f: f, evs: events(resp.Body), resp: resp}
	ev := within(t, l.evs)
	if ev.name != "endpoint" || !strings.HasPrefix(ev.data, "/messages?sessionId=") {
		t.Fatalf("first event %+v", ev)
	}
	l.endpoint = ev.data
	return l
}

// send posts one message and expects 202 Accepted.
func (l *legacy) send(t *testing.T, body string) {
	t.Helper()
	resp := l.f.do(t, "POST", l.endpoint, body)
	if got := readAll(t, resp); resp.StatusCode != 202 || got != "Accepted" {
		t.Fatalf("POST %s: %d %q", l.endpoint, resp.StatusCode, got)
	}
}

// next returns the data of the next message event.
func (l *legacy) next(t *testing.T) string {
	t.Helper()
	ev := within(t, l.evs)
	if ev.name != "message" {
		t.Fatalf("event %+v", ev)
	}
	return ev.data
}

func TestLegacySSE(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	tools.asked = make(chan error, 1)
	st := New(s, Options{})
	f := newFront(t, st)

	t.Run("status rules", func(t *testing.T) {
		l := f.legacy(t)
		tests := []struct {
			name, method, path, body string
			status                   int
			contains                 string
		}{
			{"a POST without sessionId is 400", "POST", "/messages", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 400, "missing sessionId"},
			{"a POST for an unknown session is 404", "POST", "/messages?sessionId=nope", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 404, "Session not found"},
			{"malformed JSON is 400 with -32700", "POST", l.endpoint, `{`, 400, `"code":-32700`},
			{"a message of the wrong shape is 400", "POST", l.endpoint, `{"jsonrpc":"2.0","id":1}`, 400, `"code":-32600`},
			{"a GET on the message endpoint is 405", "GET", l.endpoint, "", 405, "Method not allowed"},
			{"a POST on the stream endpoint is 405", "POST", "/sse", "", 405, "Method not allowed"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := f.do(t, tt.method, tt.path, tt.body)
				if body := readAll(t, resp); resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
					t.Fatalf("got %d %s", resp.StatusCode, body)
				}
			})
		}
		t.Run("a Streamable HTTP request cannot use a legacy session id", func(t *testing.T) {
			id := strings.TrimPrefix(l.endpoint, "/messages?sessionId=")
			resp := f.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, mcp.HeaderSessionID, id)
			if readAll(t, resp); resp.StatusCode != 404 {
				t.Fatalf("status %d", resp.StatusCode)
			}
		})
	})

	t.Run("a whole session over the stream", func(t *testing.T) {
		l := f.legacy(t)
		steps := []struct {
			name, send string
			want       []string // the next message events, in order
		}{
			{"ping works before initialize", `{"jsonrpc":"2.0","id":"p","method":"ping"}`,
				[]string{`{"jsonrpc":"2.0","id":"p","result":{}}`}},
			{"other requests wait for initialize", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: the session is not initialized; send initialize first"}}`}},
			{"initialize is answered on the stream", fmt.Sprintf(initBody, "2024-11-05", `{"elicitation":{}}`),
				[]string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"mock","version":"1.0.0"}}}`}},
			{"initialized needs no answer", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
			{"a second initialize is refused", fmt.Sprintf(initBody, "2024-11-05", `{}`),
				[]string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"Invalid Request: the session is already initialized"}}`}},
			{"progress precedes the result", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":5}}}`,
				[]string{
					`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1,"total":3}}`,
					`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2,"total":3}}`,
					`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":3,"total":3}}`,
					`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"progressed"}]}}`,
				}},
			{"a batch is refused outside 2025-03-26", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, nil},
		}
		for _, tt := range steps {
			t.Run(tt.name, func(t *testing.T) {
				if strings.HasPrefix(tt.send, "[") {
					resp := f.do(t, "POST", l.endpoint, tt.send)
					if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, "batches are not supported") {
						t.Fatalf("got %d %s", resp.StatusCode, body)
					}
					return
				}
				l.send(t, tt.send)
				for _, w := range tt.want {
					if got := l.next(t); got != w {
						t.Fatalf("got  %s\nwant %s", got, w)
					}
				}
			})
		}
		t.Run("the client answers a question with a POST", func(t *testing.T) {
			l.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"elicit"}}`)
			if got := l.next(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create"`) {
				t.Fatalf("got %s", got)
			}
			l.send(t, `{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`)
			if err := <-tools.asked; err != nil {
				t.Fatal(err)
			}
			if got := l.next(t); got != `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"answer: {\"action\":\"decline\"}"}]}}` {
				t.Fatalf("got %s", got)
			}
		})
		t.Run("list_changed reaches the stream", func(t *testing.T) {
			st.ListChanged("tools")
			if got := l.next(t); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
				t.Fatalf("got %s", got)
			}
		})
		t.Run("closing the stream ends the session", func(t *testing.T) {
			l.resp.Body.Close()
			waitFor(t, "the session to end", func() bool {
				resp := f.do(t, "POST", l.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				readAll(t, resp)
				return resp.StatusCode == 404
			})
		})
	})
}

// TestALegacySessionThatStopsReadingIsHeldBackThenDropped plays a legacy
// SSE client that reads its endpoint event and nothing more while it posts
// calls with large answers: its POSTs are held back once its stream is
// full, and after the stall timeout the session ends (reason "stalled");
// another session is served all along.
func TestALegacySessionThatStopsReadingIsHeldBackThenDropped(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	log := &trafficLog{}
	st := New(s, Options{Observer: log.add, StallTimeout: 300 * time.Millisecond})
	f := newFront(t, st)
	slow := f.legacy(t)
	slow.send(t, fmt.Sprintf(initBody, mcp.Version20241105, "{}"))
	// From here on nothing reads slow's stream: its events pile up in the
	// socket buffers, then in its queue.
	good := f.open(t, mcp.Version20250618, "{}")
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + strings.Repeat("a", 256<<10) + `"}}}`
	var statuses []int
	for i := range 200 {
		resp := f.do(t, "POST", slow.endpoint, fmt.Sprintf(call, i))
		readAll(t, resp)
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode != http.StatusAccepted {
			break
		}
		if status, body := good.call(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != 200 {
			t.Fatalf("the other session: %d %s", status, body)
		}
	}
	if last := statuses[len(statuses)-1]; last != http.StatusNotFound {
		t.Fatalf("statuses %v: want 202s, then 404 once the session was dropped", statuses)
	}
	waitFor(t, "the session to close", func() bool {
		return slices.Contains(log.summaries(), " session closed (stalled: the client did not read its event stream for 300ms)")
	})
	if status, body := good.call(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != 200 {
		t.Fatalf("the other session after: %d %s", status, body)
	}
	slow.resp.Body.Close()
	for range slow.evs { // let the parser end
	}
}

func TestPOSTsWaitingForAFullStreamAreCapped(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	st := New(s, Options{StallTimeout: time.Minute})
	defer st.Close()
	// The stream is opened and never read, so it fills for sure.
	r := st.ServeSSE(context.Background(), mcp.HTTPRequest{Method: http.MethodGet}, "/messages")
	defer r.Stream.Close()
	endpoint, _ := r.Stream.Next(context.Background())
	query, _ := url.ParseQuery(strings.TrimPrefix(string(endpoint.Data), "/messages?"))
	post := func(body string) StreamReply {
		return st.ServeMessages(context.Background(), mcp.HTTPRequest{Method: http.MethodPost, Query: query, Body: []byte(body)})
	}
	post(fmt.Sprintf(initBody, mcp.Version20241105, "{}"))
	for range stream.MaxEvents {
		_ = st.Session(query.Get("sessionId")).stream.Push(context.Background(), "message", []byte("{}"), false)
	}
	const note = `{"jsonrpc":"2.0","method":"notifications/x"}`
	held := make(chan StreamReply, maxWaitingPosts)
	for range maxWaitingPosts {
		go func() { held <- post(note) }()
	}
	waitFor(t, "the POSTs to wait", func() bool {
		sess := st.Session(query.Get("sessionId"))
		sess.mu.Lock()
		defer sess.mu.Unlock()
		return sess.waitingPost == maxWaitingPosts
	})
	t.Run("one more is refused with 429 and Retry-After", func(t *testing.T) {
		r := post(note)
		want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too many requests: this session's event stream is full and ` +
			strconv.Itoa(maxWaitingPosts) + ` messages already wait for it; read the stream"}}`
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "1" || string(r.Body) != want {
			t.Fatalf("got %d %v %s", r.Status, r.Header, r.Body)
		}
	})
	t.Run("reading the stream lets the held POSTs through", func(t *testing.T) {
		for range stream.MaxEvents / 2 {
			if _, err := r.Stream.Next(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for range maxWaitingPosts {
			select {
			case got := <-held:
				if got.Status != http.StatusAccepted {
					t.Fatalf("a held POST got %d %s", got.Status, got.Body)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a held POST is still waiting")
			}
		}
	})
}

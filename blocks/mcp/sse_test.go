package mcp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
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
	st := NewStateful(s, StatefulOptions{})
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
			resp := f.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, HeaderSessionID, id)
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

package session

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
)

func TestStreamableStatusRules(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	f := newFront(t, New(s, Options{}))
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name     string
		do       func(c *client) *http.Response
		status   int
		contains string
		header   [2]string // a reply header that must have this value
	}{
		{"a request without a session id is 400", func(c *client) *http.Response {
			return f.do(t, "POST", "/mcp", list)
		}, 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: missing Mcp-Session-Id header; send initialize first"}}`, [2]string{}},
		{"an unknown session id is 404, with the request's id", func(c *client) *http.Response {
			return f.do(t, "POST", "/mcp", list, mcp.HeaderSessionID, "nope")
		}, 404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Session not found`, [2]string{}},
		{"DELETE ends the session with 200", func(c *client) *http.Response {
			return f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, c.id)
		}, 200, "", [2]string{}},
		{"a deleted session is 404", func(c *client) *http.Response {
			readAll(t, f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, c.id))
			return c.post(t, list)
		}, 404, "Session not found", [2]string{}},
		{"DELETE without a session id is 400", func(c *client) *http.Response {
			return f.do(t, "DELETE", "/mcp", "")
		}, 400, "missing Mcp-Session-Id", [2]string{}},
		{"DELETE of an unknown session is 404", func(c *client) *http.Response {
			return f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, "nope")
		}, 404, "Session not found", [2]string{}},
		{"a second initialize on a session is 400 with -32600", func(c *client) *http.Response {
			return c.post(t, fmt.Sprintf(initBody, "2025-11-25", "{}"))
		}, 400, `{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"Invalid Request: the session is already initialized"}}`, [2]string{}},
		{"an unsupported protocol version header is 400", func(c *client) *http.Response {
			return c.post(t, list, mcp.HeaderProtocolVersion, "2026-07-28")
		}, 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: unsupported Mcp-Protocol-Version \"2026-07-28\"`, [2]string{}},
		{"another spoken protocol version header is accepted", func(c *client) *http.Response {
			return c.post(t, list, mcp.HeaderProtocolVersion, "2025-03-26")
		}, 200, `"tools":[`, [2]string{"Content-Type", "application/json"}},
		{"no protocol version header means the negotiated one", func(c *client) *http.Response {
			return c.post(t, list, mcp.HeaderProtocolVersion, "")
		}, 200, `"tools":[`, [2]string{}},
		{"malformed JSON is 400 with -32700", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":`)
		}, 400, `"code":-32700`, [2]string{}},
		{"a message of the wrong shape is 400 with -32600 and its id", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":9}`)
		}, 400, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: missing \"method\""}}`, [2]string{}},
		{"a notification is 202 with no body", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		}, 202, "", [2]string{}},
		{"a response nobody waits for is 202", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":77,"result":{}}`)
		}, 202, "", [2]string{}},
		{"PUT is 405 and names the allowed methods", func(c *client) *http.Response {
			return f.do(t, "PUT", "/mcp", list, mcp.HeaderSessionID, c.id)
		}, 405, "Method not allowed", [2]string{"Allow", "GET, POST, DELETE"}},
		{"a request whose handler emits nothing gets plain JSON", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`)
		}, 200, `{"jsonrpc":"2.0","id":"e","result":{"content":[{"type":"text","text":"{\"a\":1}"}]}}`, [2]string{"Content-Type", "application/json"}},
		{"an Accept naming neither JSON nor SSE is 406, with the request's id", func(c *client) *http.Response {
			return c.post(t, list, "Accept", "text/html")
		}, 406, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Not Acceptable`, [2]string{}},
		{"an Accept of */* is fine", func(c *client) *http.Response {
			return c.post(t, list, "Accept", "*/*")
		}, 200, `"tools":[`, [2]string{}},
		{"a client that takes only SSE gets a stream even for ping", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Accept", "text/event-stream")
		}, 200, `data: {"jsonrpc":"2.0","id":3,"result":{}}`, [2]string{"Content-Type", "text/event-stream"}},
		{"a client that takes only JSON gets JSON although the tool reports progress", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`,
				"Accept", "application/json")
		}, 200, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"progressed"}]}}`, [2]string{"Content-Type", "application/json"}},
		{"a batch from a 2025-11-25 session is 400", func(c *client) *http.Response {
			return c.post(t, "["+list+"]")
		}, 400, "batches are not supported in protocol version 2025-11-25", [2]string{}},
		{"a GET that does not accept SSE is 406", func(c *client) *http.Response {
			return f.do(t, "GET", "/mcp", "", "Accept", "application/json", mcp.HeaderSessionID, c.id)
		}, 406, "Not Acceptable", [2]string{}},
		{"a GET without a session id is 400", func(c *client) *http.Response {
			return f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream")
		}, 400, "missing Mcp-Session-Id", [2]string{}},
		{"a GET for an unknown session is 404", func(c *client) *http.Response {
			return f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, "nope")
		}, 404, "Session not found", [2]string{}},
		{"a second GET stream on a session is 409", func(c *client) *http.Response {
			c.stream(t)
			return f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
		}, 409, "already has a standalone stream", [2]string{}},
		{"resuming a POST's stream is 405, since events are not kept", func(c *client) *http.Response {
			c.stream(t)
			return f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id, "Last-Event-ID", "99-1")
		}, 405, "cannot be resumed", [2]string{"Allow", "POST, DELETE"}},
		{"completion answers no values", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"A"}}}`)
		}, 200, `{"jsonrpc":"2.0","id":5,"result":{"completion":{"values":[],"hasMore":false}}}`, [2]string{}},
		{"completion without a ref is -32602", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{}}`)
		}, 200, `"code":-32602`, [2]string{}},
		{"subscribe answers {}", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"docs://readme"}}`)
		}, 200, `{"jsonrpc":"2.0","id":6,"result":{}}`, [2]string{}},
		{"unsubscribe answers {}", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"docs://readme"}}`)
		}, 200, `{"jsonrpc":"2.0","id":6,"result":{}}`, [2]string{}},
		{"subscribe without a uri is -32602", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{}}`)
		}, 200, `"code":-32602`, [2]string{}},
		{"an unknown log level is -32602", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"loud"}}`)
		}, 200, `"code":-32602,"message":"Invalid params: unknown log level \"loud\"`, [2]string{}},
		{"a known log level answers {}", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"error"}}`)
		}, 200, `{"jsonrpc":"2.0","id":7,"result":{}}`, [2]string{}},
		{"the provider sees the session, its version and client", func(c *client) *http.Response {
			return c.post(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"session"}}`)
		}, 200, `"text":"streamable-http 2025-11-25 raw elicitation=false"`, [2]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := f.open(t, mcp.Version20251125, "{}")
			resp := tt.do(c)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
				t.Fatalf("got %d %s\nwant %d containing %s", resp.StatusCode, body, tt.status, tt.contains)
			}
			if tt.contains == "" && body != "" {
				t.Fatalf("want no body, got %q", body)
			}
			if k := tt.header[0]; k != "" && resp.Header.Get(k) != tt.header[1] {
				t.Fatalf("%s = %q, want %q", k, resp.Header.Get(k), tt.header[1])
			}
		})
	}
}

func TestReconnectingTheStandaloneStreamReplacesIt(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	st := New(s, Options{})
	f := newFront(t, st)
	c := f.open(t, mcp.Version20251125, "{}")
	old := c.stream(t)
	first := <-old // the priming event carries the stream's id
	if first.id == "" {
		t.Fatal("the standalone stream was not primed with an id")
	}
	resp := f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id,
		mcp.HeaderProtocolVersion, c.version, "Last-Event-ID", first.id)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("reconnect: %d %s", resp.StatusCode, readAll(t, resp))
	}
	fresh := events(resp.Body)
	<-fresh // its own priming event
	for range old {
		// the old stream must end rather than linger beside the new one
	}
	st.ListChanged("tools")
	if ev := <-fresh; !strings.Contains(ev.data, "notifications/tools/list_changed") {
		t.Fatalf("the new stream got %+v, want list_changed", ev)
	}
}

func TestStreamableInitialize(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	f := newFront(t, New(s, Options{MaxSessions: 3}))
	tests := []struct {
		name, body string
		header     []string
		status     int
		want       string // exact body
		session    bool   // a session id comes back
	}{
		{"a supported version is echoed and a session opens",
			fmt.Sprintf(initBody, "2025-06-18", "{}"), nil, 200,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"mock","version":"1.0.0"}}}`, true},
		{"an unknown version gets the newest",
			fmt.Sprintf(initBody, "2099-01-01", "{}"), nil, 200,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"mock","version":"1.0.0"}}}`, true},
		{"the protocol version header is not checked on initialize",
			fmt.Sprintf(initBody, "2025-11-25", "{}"), []string{mcp.HeaderProtocolVersion, "2026-07-28"}, 200, "", true},
		{"a failed initialize opens no session",
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":7}}`, nil, 200,
			`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params: \"protocolVersion\" must be a string, got number"}}`, false},
		{"initialize with a stale session id is 404",
			fmt.Sprintf(initBody, "2025-11-25", "{}"), []string{mcp.HeaderSessionID, "gone"}, 404, "", false},
		{"initialize inside a batch is not a handshake",
			"[" + fmt.Sprintf(initBody, "2025-03-26", "{}") + "]", nil, 400, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.do(t, "POST", "/mcp", tt.body, tt.header...)
			body := readAll(t, resp)
			id := resp.Header.Get(mcp.HeaderSessionID)
			if resp.StatusCode != tt.status || (tt.want != "" && body != tt.want) || (id != "") != tt.session {
				t.Fatalf("got %d %q %s", resp.StatusCode, id, body)
			}
			for _, c := range id {
				if c < 0x21 || c > 0x7e {
					t.Fatalf("session id %q has a character outside visible ASCII", id)
				}
			}
			if tt.session {
				readAll(t, f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, id))
			}
		})
	}
	t.Run("session ids are unique", func(t *testing.T) {
		a, b := f.open(t, mcp.Version20251125, "{}"), f.open(t, mcp.Version20251125, "{}")
		if a.id == b.id || len(a.id) < 20 {
			t.Fatalf("ids %q and %q", a.id, b.id)
		}
	})
	t.Run("beyond MaxSessions with none idle initialize is 503", func(t *testing.T) {
		f.open(t, mcp.Version20251125, "{}") // the third
		for _, sess := range f.st.Sessions() {
			(&client{f: f, id: sess.ID(), version: mcp.Version20251125}).stream(t)
		}
		resp := f.do(t, "POST", "/mcp", fmt.Sprintf(initBody, "2025-11-25", "{}"))
		body := readAll(t, resp)
		if resp.StatusCode != 503 || body != `{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Service unavailable: too many sessions"}}` {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
	})
}

func TestStreamableBatches(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	f := newFront(t, New(s, Options{AllowBatch: true}))
	c := f.open(t, mcp.Version20250326, "{}")
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"a batch gets an array in order, skipping notifications",
			`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"nope"},{"jsonrpc":"2.0","id":null}]`,
			200, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope"}},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must not be null"}}]`},
		{"a batch of notifications is 202", `[{"jsonrpc":"2.0","method":"a"}]`, 202, ""},
		{"initialize inside a batch is refused",
			`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`,
			200, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: initialize must not be part of a batch"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := c.call(t, tt.body)
			if status != tt.status || body != tt.want {
				t.Fatalf("got %d %s", status, body)
			}
		})
	}
	t.Run("a batch whose tool reports progress streams every answer", func(t *testing.T) {
		resp := c.post(t, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q: %s", ct, readAll(t, resp))
		}
		var answers, progress int
		for ev := range events(resp.Body) {
			switch {
			case strings.Contains(ev.data, "notifications/progress"):
				progress++
			case strings.Contains(ev.data, `"result"`):
				answers++
			}
		}
		if answers != 2 || progress != 3 {
			t.Fatalf("%d answers, %d progress", answers, progress)
		}
	})
}

func TestStatefulLimits(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	s.MaxBatch, s.MaxResponseBytes = 3, 1000
	f := newFront(t, New(s, Options{AllowBatch: true}))
	c := f.open(t, mcp.Version20250326, "{}")
	const (
		ping    = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		echo    = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"n":400}}}`
		tooLong = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a batch of 4 messages is over the limit of 3 (maxBatch); send fewer messages per request"}}`
		over    = `"error":{"code":-32603,"message":"Internal error: the answer (473 bytes) does not fit in the 1000 bytes allowed for the answers to one request (maxResponseBytes)"}`
	)
	batch := "[" + strings.Repeat(ping+",", 3) + ping + "]"
	t.Run("a Streamable HTTP batch over maxBatch is refused whole", func(t *testing.T) {
		if status, body := c.call(t, batch); status != 400 || body != tooLong {
			t.Fatalf("got %d %s", status, body)
		}
	})
	t.Run("a legacy SSE batch over maxBatch is refused whole", func(t *testing.T) {
		l := f.legacy(t)
		l.send(t, fmt.Sprintf(initBody, mcp.Version20250326, "{}"))
		l.next(t)
		resp := f.do(t, "POST", l.endpoint, batch)
		if body := readAll(t, resp); resp.StatusCode != 400 || body != tooLong {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
		l.resp.Body.Close()
	})
	t.Run("answers past the response budget become errors for their ids", func(t *testing.T) {
		status, body := c.call(t, "["+fmt.Sprintf(echo, 1)+","+fmt.Sprintf(echo, 2)+","+fmt.Sprintf(echo, 3)+"]")
		if status != 200 || strings.Count(body, `"result"`) != 2 || strings.Count(body, over) != 1 {
			t.Fatalf("got %d %s", status, body)
		}
	})
}

func TestStreamsPerSessionAreCapped(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	st := New(s, Options{MaxStreamsPerSession: 2})
	f := newFront(t, st)
	c := f.open(t, mcp.Version20250618, "{}")
	standalone := f.do(t, http.MethodGet, "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
	blocked := c.post(t, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`, "Accept", "text/event-stream")
	<-tools.started
	const over = `Too many requests: this session already has 2 event streams open (maxStreamsPerSession); close one or accept application/json`
	t.Run("a POST that needs a stream beyond the cap is 429", func(t *testing.T) {
		resp := c.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Accept", "text/event-stream")
		want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"` + over + `"}}`
		if body := readAll(t, resp); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || body != want {
			t.Fatalf("got %d %v %s", resp.StatusCode, resp.Header, body)
		}
	})
	t.Run("a call that would switch to a stream beyond the cap is answered as JSON", func(t *testing.T) {
		status, body := c.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1}}}`)
		if status != 200 || body != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"progressed"}]}}` {
			t.Fatalf("got %d %s", status, body)
		}
	})
	t.Run("another session is not limited by this one", func(t *testing.T) {
		other := f.open(t, mcp.Version20250618, "{}")
		readAll(t, other.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Accept", "text/event-stream"))
	})
	t.Run("a GET beyond the cap is 429", func(t *testing.T) {
		standalone.Body.Close()
		gated := make(chan *http.Response, 1)
		waitFor(t, "the GET stream's slot to free", func() bool {
			resp := c.post(t, `{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"gated"}}`, "Accept", "text/event-stream")
			if resp.StatusCode != 200 {
				readAll(t, resp)
				return false
			}
			gated <- resp
			return true
		})
		resp := f.do(t, http.MethodGet, "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
		if body := readAll(t, resp); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, over) {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
		close(tools.gate)
		readAll(t, <-gated)
	})
	t.Run("a closed stream frees its slot", func(t *testing.T) {
		blocked.Body.Close()
		<-tools.cancelled
		waitFor(t, "the slot to free", func() bool {
			resp := f.do(t, http.MethodGet, "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
			defer resp.Body.Close()
			return resp.StatusCode == 200
		})
	})
}

func TestAFullServerEvictsTheSessionIdleTheLongest(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	log := &trafficLog{}
	st := New(s, Options{MaxSessions: 2, Observer: log.add})
	f := newFront(t, st)
	oldest := f.open(t, mcp.Version20250618, "{}")
	streaming := f.open(t, mcp.Version20250618, "{}")
	streaming.stream(t)
	newer := f.open(t, mcp.Version20250618, "{}")
	t.Run("a new session takes the place of the one idle the longest", func(t *testing.T) {
		if status, _ := oldest.call(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != 404 {
			t.Fatalf("the evicted session answered %d", status)
		}
		if !slices.ContainsFunc(log.summaries(), func(s string) bool {
			return strings.HasPrefix(s, " session closed (evicted: the server had its limit of 2 sessions and this one was idle the longest, for ")
		}) {
			t.Fatalf("log %q", log.summaries())
		}
	})
	t.Run("a session with an open stream is not evicted", func(t *testing.T) {
		if status, _ := streaming.call(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != 200 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("with no idle session a new one is 503", func(t *testing.T) {
		newer.stream(t)
		resp := f.do(t, http.MethodPost, "/mcp", fmt.Sprintf(initBody, mcp.Version20250618, "{}"))
		if body := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "too many sessions") {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
	})
}

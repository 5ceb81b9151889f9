package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/stream"
)

func TestAnswerBecomesAStreamWhenTheHandlerEmits(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	f := newFront(t, New(s, Options{}))
	const call = `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"tok"}}}`
	tests := []struct {
		name    string
		version string
		priming bool
	}{
		{"a 2025-11-25 session gets a priming event with a retry hint first", mcp.Version20251125, true},
		{"a 2025-06-18 session gets no priming event", mcp.Version20250618, false},
		{"a 2025-03-26 session gets no priming event", mcp.Version20250326, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := f.open(t, tt.version, "{}")
			resp := c.post(t, call)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("got %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var got []string
			ids := map[string]bool{}
			for ev := range events(resp.Body) {
				if ids[ev.id] {
					t.Fatalf("event id %q repeated", ev.id)
				}
				ids[ev.id] = true
				if ev.data == "" {
					got = append(got, fmt.Sprintf("priming id=%v retry=%d", ev.id != "", ev.retry))
					continue
				}
				got = append(got, ev.data)
			}
			want := []string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":3,"message":"step 1"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2,"total":3,"message":"step 2"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":3,"total":3,"message":"step 3"}}`,
				`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"progressed"}]}}`,
			}
			if tt.priming {
				want = append([]string{"priming id=true retry=1000"}, want...)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestStandaloneStream(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	st := New(s, Options{})
	f := newFront(t, st)
	a, b := f.open(t, mcp.Version20251125, "{}"), f.open(t, mcp.Version20250618, "{}")
	sa, sb := a.stream(t), b.stream(t)
	if ev := within(t, sa); ev.data != "" || ev.id == "" || ev.retry != stream.PrimingRetry {
		t.Fatalf("2025-11-25 stream opened with %+v, want a priming event", ev)
	}
	const toolsChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	t.Run("list_changed reaches every session once", func(t *testing.T) {
		st.ListChanged("tools")
		if ev := within(t, sa); ev.data != toolsChanged {
			t.Fatalf("a got %+v", ev)
		}
		if ev := within(t, sb); ev.data != toolsChanged {
			t.Fatalf("b got %+v", ev)
		}
		quiet(t, sa)
	})
	t.Run("an undeclared list_changed is not sent", func(t *testing.T) {
		st.ListChanged("prompts")
		st.ListChanged("bogus")
		quiet(t, sb)
	})
	t.Run("resources/updated reaches only the subscribed session", func(t *testing.T) {
		if status, body := b.call(t, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"docs://readme"}}`); status != 200 {
			t.Fatalf("subscribe: %d %s", status, body)
		}
		st.ResourceUpdated("docs://other")
		st.ResourceUpdated("docs://readme")
		if ev := within(t, sb); ev.data != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"docs://readme"}}` {
			t.Fatalf("b got %+v", ev)
		}
		quiet(t, sa)
		b.call(t, `{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"docs://readme"}}`)
		st.ResourceUpdated("docs://readme")
		quiet(t, sb)
	})
	t.Run("a session log message outside a request goes to the GET stream", func(t *testing.T) {
		sess := st.Session(a.id)
		if err := sess.Notify(context.Background(), "notifications/message", map[string]any{"level": "info", "data": "hi"}); err != nil {
			t.Fatal(err)
		}
		if ev := within(t, sa); ev.data != `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi","level":"info"}}` {
			t.Fatalf("a got %+v", ev)
		}
	})
	t.Run("a closed GET stream can be opened again", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, "{}")
		resp := f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
		resp.Body.Close()
		waitFor(t, "the stream to close", func() bool {
			r := f.do(t, "GET", "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id)
			defer r.Body.Close()
			return r.StatusCode == 200
		})
	})
	t.Run("a session without a GET stream misses broadcasts without blocking", func(t *testing.T) {
		f.open(t, mcp.Version20251125, "{}")
		done := make(chan struct{})
		go func() { st.ListChanged("resources"); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("ListChanged blocked")
		}
	})
}

func TestCancellation(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	log := &trafficLog{}
	f := newFront(t, New(s, Options{Observer: log.add}))
	c := f.open(t, mcp.Version20251125, "{}")
	answer := make(chan *http.Response, 1)
	go func() {
		answer <- c.post(t, `{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"block"}}`)
	}()
	if id := <-tools.started; id.String() != `"b1"` {
		t.Fatalf("started %s", id)
	}
	t.Run("an unknown request id is ignored", func(t *testing.T) {
		if status, _ := c.call(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}`); status != 202 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("the cancelled request's context ends", func(t *testing.T) {
		if status, _ := c.call(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b1","reason":"user"}}`); status != 202 {
			t.Fatalf("status %d", status)
		}
		select {
		case <-tools.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler was not cancelled")
		}
	})
	t.Run("no response is sent for it", func(t *testing.T) {
		resp := <-answer
		if body := readAll(t, resp); resp.StatusCode != 202 || body != "" {
			t.Fatalf("got %d %q", resp.StatusCode, body)
		}
		waitFor(t, "the traffic log", func() bool {
			return slices.Contains(log.summaries(), `out no answer to cancelled tools/call block`)
		})
		if slices.ContainsFunc(log.summaries(), func(s string) bool { return strings.Contains(s, "result of tools/call block") }) {
			t.Fatalf("a result was logged: %q", log.summaries())
		}
	})
	t.Run("ending the session cancels what is in flight", func(t *testing.T) {
		go func() {
			answer <- c.post(t, `{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"block"}}`)
		}()
		<-tools.started
		readAll(t, f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, c.id))
		select {
		case <-tools.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler was not cancelled")
		}
		readAll(t, <-answer)
	})
}

func TestElicitationRoundTrip(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	tools.asked = make(chan error, 1)
	f := newFront(t, New(s, Options{}))
	const call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"elicit"}}`
	t.Run("the question goes on the call's stream and the answer comes back by POST", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, `{"elicitation":{}}`)
		resp := c.post(t, call)
		evs := events(resp.Body)
		ev := within(t, evs)
		want := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Who are you?","requestedSchema":{"properties":{"name":{"type":"string"}},"type":"object"}}}`
		if ev.data != want {
			t.Fatalf("got %s\nwant %s", ev.data, want)
		}
		if status, body := c.call(t, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ana"}}}`); status != 202 {
			t.Fatalf("answer: %d %s", status, body)
		}
		if err := <-tools.asked; err != nil {
			t.Fatal(err)
		}
		ev = within(t, evs)
		if ev.data != `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"answer: {\"action\":\"accept\",\"content\":{\"name\":\"Ana\"}}"}]}}` {
			t.Fatalf("result %s", ev.data)
		}
		ended(t, evs)
	})
	t.Run("an error answer reaches the provider", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, `{"elicitation":{}}`)
		evs := events(c.post(t, call).Body)
		within(t, evs)
		c.call(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"user declined"}}`)
		if err := <-tools.asked; err == nil || !strings.Contains(err.Error(), "user declined") {
			t.Fatalf("err = %v", err)
		}
		within(t, evs)
		ended(t, evs)
	})
	t.Run("a client without the capability is not asked", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, `{"sampling":{}}`)
		status, body := c.call(t, call)
		if err := <-tools.asked; !errors.Is(err, ErrClientCapability) {
			t.Fatalf("err = %v", err)
		}
		if status != 200 || !strings.Contains(body, `"isError":true`) {
			t.Fatalf("got %d %s", status, body)
		}
	})
	t.Run("URL mode needs the url capability", func(t *testing.T) {
		st := New(s, Options{})
		defer st.Close()
		sess := st.newSession(TransportStdio)
		sess.clientCaps = []byte(`{"elicitation":{"form":{}}}`)
		_, err := sess.Request(context.Background(), "elicitation/create", map[string]any{"mode": "url"})
		if !errors.Is(err, ErrClientCapability) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a provider that stops waiting tells the client", func(t *testing.T) {
		st := New(s, Options{})
		f := newFront(t, st)
		c := f.open(t, mcp.Version20250618, `{"roots":{}}`)
		evs := c.stream(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := st.Session(c.id).Request(ctx, "roots/list", nil)
			done <- err
		}()
		if ev := within(t, evs); ev.data != `{"jsonrpc":"2.0","id":1,"method":"roots/list"}` {
			t.Fatalf("got %s", ev.data)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if ev := within(t, evs); !strings.Contains(ev.data, `"method":"notifications/cancelled","params":{"reason":"the server stopped waiting","requestId":1}`) {
			t.Fatalf("got %s", ev.data)
		}
	})
}

func TestLogLevelFiltersMessages(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	f := newFront(t, New(s, Options{}))
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`
	tests := []struct {
		name  string
		level string // "" = never set
		want  []string
	}{
		{"before any setLevel every level is sent", "", []string{"debug", "info", "warning", "error"}},
		{"warning keeps warning and above", "warning", []string{"warning", "error"}},
		{"debug keeps everything", "debug", []string{"debug", "info", "warning", "error"}},
		{"emergency keeps nothing and the answer is plain JSON", "emergency", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := f.open(t, mcp.Version20250618, "{}")
			if tt.level != "" {
				c.call(t, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"`+tt.level+`"}}`)
			}
			resp := c.post(t, call)
			if tt.want == nil {
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Fatalf("Content-Type %q", ct)
				}
				readAll(t, resp)
				return
			}
			var got []string
			for ev := range events(resp.Body) {
				if strings.Contains(ev.data, "notifications/message") {
					_, after, _ := strings.Cut(ev.data, `"level":"`)
					got = append(got, after[:strings.IndexByte(after, '"')])
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("levels %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSessionExpiry runs on synctest's clock, so the idle timeout passes
// exactly when it should however loaded the machine is; the sessions are
// served without a network for the same reason.
func TestSessionExpiry(t *testing.T) {
	leakCheck(t)
	synctest.Test(t, func(t *testing.T) {
		s, _ := newStatefulServer(t)
		log := &trafficLog{}
		st := New(s, Options{IdleTimeout: 60 * time.Millisecond, Observer: log.add})
		defer st.Close()
		serve := func(method, sid, accept, body string) StreamReply {
			h := http.Header{"Accept": {accept}, "Content-Type": {"application/json"}, mcp.HeaderProtocolVersion: {mcp.Version20251125}}
			if sid != "" {
				h.Set(mcp.HeaderSessionID, sid)
			}
			return st.ServeStreamable(context.Background(), mcp.HTTPRequest{Method: method, Header: h, Body: []byte(body)})
		}
		open := func() string {
			sid := serve(http.MethodPost, "", "application/json", fmt.Sprintf(initBody, mcp.Version20251125, "{}")).Header.Get(mcp.HeaderSessionID)
			if r := serve(http.MethodPost, sid, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); sid == "" || r.Status != 202 {
				t.Fatalf("opening a session: %q %d %s", sid, r.Status, r.Body)
			}
			return sid
		}
		idle, streaming := open(), open()
		get := serve(http.MethodGet, streaming, "text/event-stream", "")
		if get.Stream == nil {
			t.Fatalf("GET: %d %s", get.Status, get.Body)
		}
		defer get.Stream.Close()
		time.Sleep(250 * time.Millisecond)
		synctest.Wait() // the idle timers have done their work
		ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		if r := serve(http.MethodPost, idle, "application/json", ping); r.Status != 404 {
			t.Fatalf("an idle session: %d %s, want 404", r.Status, r.Body)
		}
		if !slices.Contains(log.summaries(), " session closed (expired)") {
			t.Fatalf("log %q", log.summaries())
		}
		if r := serve(http.MethodPost, streaming, "application/json", ping); r.Status != 200 {
			t.Fatalf("a session with an open stream: %d %s, want 200", r.Status, r.Body)
		}
		if ev, err := get.Stream.Next(context.Background()); err != nil || ev.ID == "" {
			t.Fatalf("the stream's priming event: %+v %v", ev, err)
		}
	})
}

func TestCloseEndsEverything(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	st := New(s, Options{})
	f := newFront(t, st)
	c := f.open(t, mcp.Version20250618, "{}")
	evs := c.stream(t)
	answer := make(chan *http.Response, 1)
	go func() {
		answer <- c.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	}()
	<-tools.started
	st.Close()
	t.Run("requests in flight are cancelled", func(t *testing.T) {
		<-tools.cancelled
		readAll(t, <-answer)
	})
	t.Run("open streams end", func(t *testing.T) { ended(t, evs) })
	t.Run("the session is gone", func(t *testing.T) {
		if status, _ := c.call(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != 404 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("new sessions are refused with 503", func(t *testing.T) {
		resp := f.do(t, "POST", "/mcp", fmt.Sprintf(initBody, "2025-11-25", "{}"))
		if body := readAll(t, resp); resp.StatusCode != 503 || !strings.Contains(body, "shutting down") {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
	})
}

func TestTrafficLog(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	log := &trafficLog{}
	st := New(s, Options{Observer: log.add})
	f := newFront(t, st)
	c := f.open(t, mcp.Version20250618, "{}")
	c.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"}}}`)
	c.call(t, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"docs://nope"}}`)
	c.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1}}}`)
	readAll(t, f.do(t, "DELETE", "/mcp", "", mcp.HeaderSessionID, c.id))
	want := []string{
		" session opened (streamable-http)",
		"in initialize",
		"out result of initialize",
		"in notifications/initialized",
		"in tools/call weather",
		"out result of tools/call weather",
		"in resources/read docs://nope",
		"out error of resources/read docs://nope",
		"in tools/call progress",
		"out notifications/progress",
		"out notifications/progress",
		"out notifications/progress",
		"out result of tools/call progress",
		" session closed (deleted)",
	}
	if got := log.summaries(); !slices.Equal(got, want) {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, ev := range log.evs {
		if ev.Session != c.id || ev.Transport != TransportStreamable || ev.Time.IsZero() {
			t.Fatalf("event %+v", ev)
		}
		if ev.Kind != TrafficSessionOpened && ev.Kind != TrafficSessionClosed && len(ev.Message) == 0 {
			t.Fatalf("event without its message: %+v", ev)
		}
	}
}

func TestTrafficLogEscapesWhatTheClientWrote(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	log := &trafficLog{}
	f := newFront(t, New(s, Options{Observer: log.add}))
	c := f.open(t, mcp.Version20250618, "{}")
	c.call(t, "{\"jsonrpc\":\"2.0\",\"method\":\"evil\\n12:00:00.000 mock  in  forged\\u001b[31m\\u202e\"}")
	c.call(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\n \"params\":{\"name\":\"x\\ry\\u0007\",\"arguments\":{\"s\":\"\xff\"}}}")
	want := []string{
		`in evil\n12:00:00.000 mock  in  forged\x1b[31m\u202e`,
		`in tools/call x\ry\a`,
		`out error of tools/call x\ry\a`,
	}
	got := log.summaries()[4:]
	if !slices.Equal(got, want) {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, ev := range log.evs {
		if strings.ContainsAny(ev.Method, "\n\r\x1b\a") || strings.ContainsAny(string(ev.Message), "\n\r") || !utf8.Valid(ev.Message) {
			t.Errorf("event %q: method %q, message %q", ev.Summary, ev.Method, ev.Message)
		}
	}
}

func TestRefusedRequestsAreTrafficEvents(t *testing.T) {
	leakCheck(t)
	s, _ := newStatefulServer(t)
	log := &trafficLog{}
	f := newFront(t, New(s, Options{Observer: log.add}))
	c := f.open(t, mcp.Version20250618, "{}")
	readAll(t, f.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, mcp.HeaderSessionID, "gone\tx"))
	c.call(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, mcp.HeaderProtocolVersion, "1999-01-01")
	readAll(t, f.do(t, "POST", "/messages", `[`))
	log.mu.Lock()
	defer log.mu.Unlock()
	var got []string
	for _, ev := range log.evs {
		if ev.Kind == TrafficRejected {
			got = append(got, fmt.Sprintf("%s %s %q %d %d %s", ev.Direction, ev.Transport, ev.Session, ev.Status, ev.Code, ev.Summary))
		}
	}
	want := []string{
		`in streamable-http "" 404 -32001 rejected (HTTP 404): Session not found: it expired or was deleted; initialize a new one [session "gone\tx"]`,
		`in streamable-http "` + c.id + `" 400 -32600 rejected (HTTP 400): Bad Request: unsupported Mcp-Protocol-Version "1999-01-01"; this server speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`,
		`in sse "" 400 -32600 rejected (HTTP 400): Bad Request: missing sessionId query parameter`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rejections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCallsWhoseClientLeftAreCancelled(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	log := &trafficLog{}
	st := New(s, Options{Observer: log.add})
	f := newFront(t, st)
	const call = `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block"}}`
	// cancelled checks the call's context ended, the traffic log says why,
	// and the goroutine that ran it is gone.
	cancelled := func(t *testing.T, sess *Session, why string) {
		t.Helper()
		select {
		case <-tools.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the call was not cancelled")
		}
		waitFor(t, "the traffic log", func() bool {
			return slices.Contains(log.summaries(), "out no answer to cancelled tools/call block ("+why+")")
		})
		done := make(chan struct{})
		go func() { sess.calls.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the call's goroutine is still running")
		}
	}
	leave := func(t *testing.T, c *client, accept string) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", f.srv.URL+"/mcp", strings.NewReader(call))
		req.Header.Set("Accept", accept)
		req.Header.Set(mcp.HeaderSessionID, c.id)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if resp, err := f.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		<-tools.started
		cancel()
		<-done
	}
	t.Run("a POST waiting for a JSON answer", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, "{}")
		leave(t, c, "application/json")
		cancelled(t, st.Session(c.id), "the client closed the connection")
	})
	t.Run("a POST answered with an event stream", func(t *testing.T) {
		c := f.open(t, mcp.Version20250618, "{}")
		leave(t, c, "text/event-stream")
		cancelled(t, st.Session(c.id), "the client closed the connection")
	})
	t.Run("a legacy SSE session whose stream is closed", func(t *testing.T) {
		l := f.legacy(t)
		l.send(t, fmt.Sprintf(initBody, mcp.Version20241105, "{}"))
		l.next(t)
		l.send(t, call)
		<-tools.started
		sess := st.Session(strings.TrimPrefix(l.endpoint, "/messages?sessionId="))
		l.resp.Body.Close()
		cancelled(t, sess, "the session ended: disconnected")
	})
}

func TestAPOSTStreamLeftUnreadIsClosedAndItsCallsCancelled(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	log := &trafficLog{}
	st := New(s, Options{Observer: log.add, StallTimeout: 200 * time.Millisecond})
	f := newFront(t, st)
	c := f.open(t, mcp.Version20250618, "{}")
	resp := c.post(t, `{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"flood"}}`)
	defer resp.Body.Close() // never read until the end
	select {
	case <-tools.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled")
	}
	waitFor(t, "the traffic log", func() bool {
		return slices.Contains(log.summaries(), "out no answer to cancelled tools/call flood (the client did not read its answer stream)")
	})
	if status, body := c.call(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != 200 {
		t.Fatalf("the session: %d %s", status, body)
	}
}

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// callFails dials f, calls a tool and returns the call's error.
func callFails(t *testing.T, o client.Options) error {
	t.Helper()
	c := dial(t, o)
	_, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{})
	if err == nil {
		t.Fatal("the call succeeded")
	}
	return err
}

func TestHostileAnswersArePreciseErrors(t *testing.T) {
	huge := strings.Repeat("x", 2<<20)
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request, m jsonrpc.Message)
		want   []string
	}{
		{"garbage", func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
			writeJSON(w, []byte("<html>oops</html>"))
		}, []string{"not JSON-RPC", "<html>oops</html>"}},
		{"a huge JSON body", func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
			result(w, m, `{"content":[{"type":"text","text":"`+huge+`"}]}`)
		}, []string{"the answer is over 1048576 bytes"}},
		{"a huge event", func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
			sse(w, message(jsonrpc.AppendResult(nil, m.ID, []byte(`{"content":[{"type":"text","text":"`+huge+`"}]}`))))
		}, []string{"an event of the stream is over 1048576 bytes"}},
		{"an event line that never ends", func(w http.ResponseWriter, r *http.Request, _ jsonrpc.Message) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: ")
			chunk := []byte(strings.Repeat("x", 64<<10))
			for r.Context().Err() == nil { // until the client gives up on it, however long that takes
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, []string{"an event of the stream is over 1048576 bytes"}},
		{"a wrong content type", func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<p>login</p>"))
		}, []string{`Content-Type is "text/html"`, "<p>login</p>"}},
		{"an answer to another request", func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
			result(w, jsonrpc.Message{Request: jsonrpc.Request{ID: jsonrpc.IntID(999)}}, `{}`)
		}, []string{"holds no response to request 2"}},
		{"a stream that ends early", func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
			sse(w, "data:\n\n", message([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)))
		}, []string{"the event stream ended before the response to request 2"}},
		{"202 to a request", func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
			w.WriteHeader(http.StatusAccepted)
		}, []string{"HTTP 202 to a request: no answer"}},
		{"a broken response", func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
			writeJSON(w, []byte(`{"jsonrpc":"2.0","id":`+m.ID.String()+`,"error":"no"}`))
		}, []string{"the response to request 2 is not valid JSON-RPC"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.answer)
			err := callFails(t, client.Options{URL: f.url(), MaxMessageBytes: 1 << 20})
			if !errors.Is(err, client.ErrProtocol) {
				t.Errorf("not ErrProtocol: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestAnHTTPErrorCarriesStatusBodyAndJSONRPCError(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "database down")))
	})
	err := callFails(t, client.Options{URL: f.url()})
	var he *client.HTTPError
	var rpc *jsonrpc.Error
	if !errors.As(err, &he) || he.Status != 500 || !errors.As(err, &rpc) || rpc.Message != "database down" {
		t.Fatalf("err = %v", err)
	}
	if want := "tools/call: POST " + f.url() + ": HTTP 500: json-rpc error -32603: database down"; err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
}

func TestAPlainHTTPErrorQuotesItsBody(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ jsonrpc.Message) {
		http.Error(w, strings.Repeat("busy ", 200), http.StatusServiceUnavailable)
	})
	err := callFails(t, client.Options{URL: f.url()})
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != 503 || len(he.Body) > 520 || !strings.HasSuffix(he.Body, "…") {
		t.Fatalf("err = %v", err)
	}
}

func TestAHangingServerTimesOutAndIsToldSo(t *testing.T) {
	f := newFake(t, func(_ http.ResponseWriter, r *http.Request, _ jsonrpc.Message) {
		<-r.Context().Done()
	})
	start := time.Now()
	err := callFails(t, client.Options{URL: f.url(), Timeout: 300 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms (the client's timeout)") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	m, ok := f.find("notifications/cancelled")
	if !ok || !strings.Contains(string(m.Params), `"requestId":2,"reason":"the client timed out"`) {
		t.Fatalf("cancelled = %s %v", m.Params, ok)
	}
}

func TestAServerThatNeverAnswersInitializeTimesOut(t *testing.T) {
	f := newFake(t, nil)
	f.srv.Config.Handler = http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server sees the client leave only once the body is read
		<-r.Context().Done()
	})
	_, err := client.Dial(testCtx(t), client.Options{URL: f.url(), Timeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "initialize: no answer within 200ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestCredentialsRefusedDoNotFallBackToSSE(t *testing.T) {
	f := newFake(t, nil)
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			f.mu.Lock()
			f.gets++
			f.mu.Unlock()
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
		http.Error(w, "no token", http.StatusUnauthorized)
	})
	_, err := client.Dial(testCtx(t), client.Options{URL: f.url()})
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != 401 || he.Body != "no token" || f.gets != 0 {
		t.Fatalf("err = %v, GETs %d", err, f.gets)
	}
}

func TestAnExpiredSessionIsRenewedOnce(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
		result(w, m, `{"content":[{"type":"text","text":"ok"}]}`)
	})
	c := dial(t, client.Options{URL: f.url()})
	f.mu.Lock()
	f.expired = 1 // the server forgets session-1
	f.mu.Unlock()
	res, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{})
	if err != nil || res.Content[0].Text != "ok" || f.count("initialize") != 2 {
		t.Fatalf("%v %v, initialize %d times", res, err, f.count("initialize"))
	}
	t.Run("a server that forgets every session gets no loop", func(t *testing.T) {
		f.mu.Lock()
		f.expired = 1000
		f.mu.Unlock()
		_, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{})
		if err == nil || f.count("initialize") > 4 {
			t.Fatalf("%v, initialize %d times", err, f.count("initialize"))
		}
	})
}

func TestListsFollowCursorsAndRefuseLoops(t *testing.T) {
	pages := map[string]string{
		"":   `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`,
		"p2": `{"tools":[{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"p3"}`,
		"p3": `{"tools":[{"name":"c","inputSchema":{"type":"object"}}]}`,
		"l":  `{"tools":[],"nextCursor":"l"}`,
	}
	start := ""
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
		var p struct{ Cursor string }
		_ = json.Unmarshal(m.Params, &p)
		if p.Cursor == "" {
			p.Cursor = start
		}
		result(w, m, pages[p.Cursor])
	})
	c := dial(t, client.Options{URL: f.url()})
	tools, err := c.ListTools(testCtx(t))
	if err != nil || len(tools) != 3 || tools[2].Name != "c" {
		t.Fatalf("%+v %v", tools, err)
	}
	start = "l"
	if _, err := c.ListTools(testCtx(t)); !errors.Is(err, client.ErrProtocol) || !strings.Contains(err.Error(), `repeated the cursor "l"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestServerRequestsAndNotificationsInAnSSEAnswer(t *testing.T) {
	var f *fake
	f = newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) {
		sse(w, "retry: 100\ndata:\n\n",
			message(jsonrpc.AppendRequest(nil, jsonrpc.StringID("s-1"), "sampling/createMessage", []byte(`{"messages":[]}`))),
			message(jsonrpc.AppendRequest(nil, jsonrpc.StringID("s-2"), "ping", nil)),
			message([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)),
			message([]byte("{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}")))
		for deadline := time.Now().Add(5 * time.Second); f.answers() < 2 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		sse(w, message(jsonrpc.AppendResult(nil, m.ID, []byte(`{"content":[]}`))))
	})
	changed := make(chan string, 1)
	notes := make(chan string, 1)
	c := dial(t, client.Options{URL: f.url(),
		OnListChanged:  func(list string) { changed <- list },
		OnNotification: func(method string, params json.RawMessage) { notes <- method + " " + string(params) }})
	if _, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := <-changed; got != "tools" {
		t.Errorf("list changed: %q", got)
	}
	if got := <-notes; got != `notifications/message {"level":"info","data":"hi"}` {
		t.Errorf("notification: %q", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var answers []string
	for _, m := range f.received {
		if m.Kind == jsonrpc.KindResponse {
			b, _ := json.Marshal(jsonrpc.Response{ID: m.ID, Result: m.Result, Error: m.Error})
			answers = append(answers, string(b))
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","id":"s-1","error":{"code":-32601,"message":"Method not found: this client does not serve sampling/createMessage"}}`,
		`{"jsonrpc":"2.0","id":"s-2","result":{}}`,
	}
	if strings.Join(answers, "\n") != strings.Join(want, "\n") && strings.Join(answers, "\n") != want[1]+"\n"+want[0] {
		t.Fatalf("answers:\n%s", strings.Join(answers, "\n"))
	}
}

// answers counts the responses the client sent.
func (f *fake) answers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.received {
		if m.Kind == jsonrpc.KindResponse {
			n++
		}
	}
	return n
}

func TestAnUnknownProtocolVersionIsRefused(t *testing.T) {
	f := newFake(t, nil)
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			return
		}
		writeJSON(w, []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"1"}}}`))
	})
	_, err := client.Dial(testCtx(t), client.Options{URL: f.url()})
	if !errors.Is(err, client.ErrProtocol) || !strings.Contains(err.Error(), `the server answered protocol version "1999-01-01"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestTheGETStreamCarriesListChangesAndServerRequests(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) { result(w, m, `{}`) })
	sessions := make(chan string, 10)
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		sessions <- r.Header.Get(mcp.HeaderSessionID)
		sse(w, ": hello\n\n",
			message([]byte(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)),
			message(jsonrpc.AppendRequest(nil, jsonrpc.StringID("g-1"), "ping", nil)))
		<-r.Context().Done()
	}
	changed := make(chan string, 1)
	c := dial(t, client.Options{URL: f.url(), OnListChanged: func(list string) { changed <- list }})
	if got := <-sessions; got != "session-1" {
		t.Fatalf("the GET stream carried session %q", got)
	}
	select {
	case got := <-changed:
		if got != "prompts" {
			t.Fatalf("changed: %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no list change heard")
	}
	for deadline := time.Now().Add(5 * time.Second); f.answers() < 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if f.answers() != 1 {
		t.Fatal("the ping on the GET stream was not answered")
	}
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

func TestNoGETStreamWithoutCallbacksOr405(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) { result(w, m, `{}`) })
	c := dial(t, client.Options{URL: f.url()})
	_ = c.Ping(testCtx(t))
	c2 := dial(t, client.Options{URL: f.url(), OnListChanged: func(string) {}})
	_ = c2.Ping(testCtx(t))
	gets := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.gets
	}
	for deadline := time.Now().Add(5 * time.Second); gets() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // past relistenDelay: a 405 is not asked again
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gets != 1 {
		t.Fatalf("%d GETs, want 1 (the client with a callback, once: the server answers 405)", f.gets)
	}
}

func TestConcurrentRequestsOnAnExpiredSessionRenewItOnce(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) { result(w, m, `{}`) })
	c := dial(t, client.Options{URL: f.url()})
	f.mu.Lock()
	f.expired = 1
	f.mu.Unlock()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Ping(testCtx(t)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.count("initialize"); n != 2 {
		t.Fatalf("initialize %d times, want 2", n)
	}
}

func TestLegacyStreamsThatCannotBeUsed(t *testing.T) {
	cases := []struct {
		name   string
		stream func(w http.ResponseWriter, r *http.Request)
		want   string
	}{
		{"an endpoint on another origin", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, "event: endpoint\ndata: http://elsewhere.example/messages\n\n")
		}, "the endpoint http://elsewhere.example/messages is not on the stream's origin"},
		{"no endpoint event", func(w http.ResponseWriter, r *http.Request) {
			sse(w, ": waiting\n\n")
			<-r.Context().Done()
		}, "no endpoint event within 300ms"},
		{"a first event that is not the endpoint", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, message([]byte(`{"jsonrpc":"2.0","method":"ping","id":1}`)))
		}, `the event stream's first event is "message", not endpoint`},
		{"not an event stream", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, []byte(`{}`))
		}, `the answer's Content-Type is "application/json", not text/event-stream`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(tc.stream))
			defer srv.Close()
			_, err := client.Dial(testCtx(t), client.Options{URL: srv.URL + "/sse", Transport: client.TransportSSE,
				Timeout: 300 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestTheProtocolVersionHeaderFollowsInitialize(t *testing.T) {
	var (
		mu      sync.Mutex
		headers []string
	)
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, m jsonrpc.Message) { result(w, m, `{}`) })
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Method+" "+r.Header.Get(mcp.HeaderProtocolVersion)+" "+r.Header.Get(mcp.HeaderSessionID))
		mu.Unlock()
		inner.ServeHTTP(w, r)
	})
	c := dial(t, client.Options{URL: f.url()})
	if err := c.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "POST  |POST 2025-06-18 session-1|POST 2025-06-18 session-1|DELETE 2025-06-18 session-1"
	if strings.Join(headers, "|") != want {
		t.Fatalf("headers:\n%s\nwant\n%s", strings.Join(headers, "|"), want)
	}
}

package session

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/stream"
)

// drained reads s to its end after Drain(ctx) and returns the data of
// every event; it fails if the stream does not end within 5s.
func drained(t *testing.T, s stream.Stream, ctx context.Context) []string {
	t.Helper()
	s.Drain(ctx)
	var got []string
	deadline, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		ev, err := s.Next(deadline)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("the stream did not end: %v (so far %q)", err, got)
		}
		got = append(got, string(ev.Data))
	}
}

func post(st *Front, sid, accept, body string) StreamReply {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {accept}}
	if sid != "" {
		h.Set(mcp.HeaderSessionID, sid)
	}
	return st.ServeStreamable(context.Background(), mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: []byte(body)})
}

const stopped = `"error":{"code":-32603,"message":"Internal error: the server is shutting down"}}`

func TestDrainingAStreamAnswersWhatItOwes(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	st := New(s, Options{})
	defer st.Close()
	sid := post(st, "", "application/json", fmt.Sprintf(initBody, "2025-06-18", "{}")).Header.Get(mcp.HeaderSessionID)
	if sid == "" {
		t.Fatal("no session")
	}
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	t.Run("a POST stream gets the result of a call that finishes in time", func(t *testing.T) {
		r := post(st, sid, "text/event-stream", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gated"}}`)
		ctx := context.Background()
		go func() { tools.gate <- struct{}{} }()
		got := drained(t, r.Stream, ctx)
		if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"opened"}]}}` {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("a POST stream gets an error for a call that would not finish", func(t *testing.T) {
		r := post(st, sid, "text/event-stream", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`)
		<-tools.started
		got := drained(t, r.Stream, short())
		<-tools.cancelled
		if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":2,`+stopped {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("a GET stream, which owes nothing, ends at once", func(t *testing.T) {
		r := st.ServeStreamable(context.Background(), mcp.HTTPRequest{Method: http.MethodGet,
			Header: http.Header{"Accept": {"text/event-stream"}, mcp.HeaderSessionID: {sid}}})
		if r.Stream == nil {
			t.Fatalf("GET: %d %s", r.Status, r.Body)
		}
		if got := drained(t, r.Stream, context.Background()); len(got) != 0 {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("a legacy SSE stream answers the calls in flight, then ends", func(t *testing.T) {
		r := st.ServeSSE(context.Background(), mcp.HTTPRequest{Method: http.MethodGet}, "/messages")
		ev, _ := r.Stream.Next(context.Background())
		q, _ := url.ParseQuery(string(ev.Data[len("/messages?"):]))
		send := func(body string) {
			rep := st.ServeMessages(context.Background(), mcp.HTTPRequest{Method: http.MethodPost, Query: q, Body: []byte(body)})
			if rep.Status != http.StatusAccepted {
				t.Fatalf("%d %s", rep.Status, rep.Body)
			}
		}
		send(fmt.Sprintf(initBody, "2024-11-05", "{}"))
		if ev, _ := r.Stream.Next(context.Background()); ev.Name != "message" {
			t.Fatalf("initialize: %+v", ev)
		}
		send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block"}}`)
		<-tools.started
		got := drained(t, r.Stream, short())
		<-tools.cancelled
		if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":3,`+stopped {
			t.Fatalf("got %q", got)
		}
	})
}

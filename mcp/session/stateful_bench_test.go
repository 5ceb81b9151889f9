package session

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/octo-run/octo/mcp"
)

// BenchmarkStatefulPost measures the hot path of a session: one POST with a
// tools/call answered as JSON, without sockets.
func BenchmarkStatefulPost(b *testing.B) {
	s, _ := newStatefulServer(b)
	st := New(s, Options{})
	defer st.Close()
	ctx := context.Background()
	init := st.ServeStreamable(ctx, mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{},
		Body: fmt.Appendf(nil, initBody, mcp.Version20251125, "{}")})
	h := http.Header{mcp.HeaderSessionID: init.Header[mcp.HeaderSessionID], mcp.HeaderProtocolVersion: {mcp.Version20251125},
		"Accept": {"application/json, text/event-stream"}}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"city":"Oslo"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		r := st.ServeStreamable(ctx, mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: body})
		if r.Status != http.StatusOK {
			b.Fatalf("status %d %s", r.Status, r.Body)
		}
	}
}

// FuzzStreamablePost posts arbitrary bodies and protocol versions to a live
// session: no panic, and only the statuses the transport defines.
func FuzzStreamablePost(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":7}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":[]}}`,
		`{`,
	} {
		f.Add([]byte(seed), "2025-03-26")
	}
	s, _ := newStatefulServer(f)
	f.Fuzz(func(t *testing.T, body []byte, version string) {
		st := New(s, Options{AllowBatch: true})
		defer st.Close()
		ctx := context.Background()
		init := st.ServeStreamable(ctx, mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{},
			Body: fmt.Appendf(nil, initBody, mcp.Version20250326, "{}")})
		h := http.Header{mcp.HeaderSessionID: init.Header[mcp.HeaderSessionID], mcp.HeaderProtocolVersion: {version}}
		r := st.ServeStreamable(ctx, mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: body})
		switch r.Status {
		case 200, 202, 400:
		default:
			t.Fatalf("status %d %s", r.Status, r.Body)
		}
		if r.Stream != nil {
			for {
				if _, err := r.Stream.Next(ctx); err != nil {
					break
				}
			}
			r.Stream.Close()
		}
	})
}

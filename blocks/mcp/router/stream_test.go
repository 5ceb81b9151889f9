package router_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

const forecastWithProgress = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"},"_meta":{"progressToken":"p"}}}`

// drain reads a stream answer to its end: its events' data, one per line.
func drain(tb testing.TB, s runtime.Stream) string {
	tb.Helper()
	defer s.(io.Closer).Close()
	var out []string
	for {
		ev, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return strings.Join(out, "\n")
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(ev.Data))
	}
}

// A call with a progress token from a client that takes SSE is answered as a stream whose last
// event is the result; the exchange says so for the connector.
func TestAToolsCallWithAProgressTokenIsStreamedByTheRouter(t *testing.T) {
	f := sampleFlow(t)
	out, err := serve(context.Background(), f, []byte(forecastWithProgress))
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := httpmsg.From(out)
	s := out.Stream()
	if s == nil || ex.Status != http.StatusOK || ex.ContentType != "text/event-stream" {
		t.Fatalf("not a stream: %d %q %s", ex.Status, ex.ContentType, out.Raw())
	}
	if got := drain(t, s); got != forecastWant {
		t.Fatalf("stream:\n%s\nwant:\n%s", got, forecastWant)
	}
}

// BenchmarkToolsCallWithProgress is the forecast call asking for progress: the answer is a
// stream (the branch runs in its own goroutine, detached from the exchange), read to its end.
func BenchmarkToolsCallWithProgress(b *testing.B) {
	f := sampleFlow(b)
	in := []byte(forecastWithProgress)
	b.ReportAllocs()
	for b.Loop() {
		out, err := serve(context.Background(), f, in)
		if err != nil {
			b.Fatal(err)
		}
		if got := drain(b, out.Stream()); got != forecastWant {
			b.Fatal(got)
		}
	}
}

// BenchmarkToolsCallOverStdio is the forecast call as a line of a stdio session: handed to the
// session, run, and its answer taken from the session's stream, as the stdio connector does.
func BenchmarkToolsCallOverStdio(b *testing.B) {
	f := sampleFlow(b)
	ctx := context.Background()
	opened, err := f.Run(ctx, stdiomsg.NewMessage(nil, stdiomsg.Event{Kind: stdiomsg.Opened}))
	if err != nil {
		b.Fatal(err)
	}
	lines := opened.Stream()
	defer lines.(io.Closer).Close()
	line := func(text string) string {
		if _, err := f.Run(ctx, stdiomsg.NewMessage([]byte(text), stdiomsg.Event{Kind: stdiomsg.Line})); err != nil {
			b.Fatal(err)
		}
		ev, err := lines.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return string(ev.Data)
	}
	line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if got := line(forecastCall); got != forecastWant {
		b.Fatal(got)
	}
	b.ReportAllocs()
	for b.Loop() {
		line(forecastCall)
	}
}

package octotest

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// An answer written as an event stream is read event by event: notifications before the
// answer (progress, logs) are kept for the case, and the answer is the event with the
// request's id.
func TestTheAnswerIsFoundInAnEventStream(t *testing.T) {
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
		": a comment\n" +
		"id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\n" + // one message over two data lines
		"data: \"result\":{\"ok\":true}}\n\n"
	find := func(body string) (*rpcMessage, *script, error) {
		sc := &script{}
		c := &httpConn{script: sc}
		m, err := c.stream(context.Background(), strings.NewReader(body), "7", &httpAnswer{header: http.Header{}})
		return m, sc, err
	}
	m, sc, err := find(stream)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Result) != `{"ok":true}` {
		t.Fatalf("result %s", m.Result)
	}
	if len(sc.notified) != 1 || !sc.wasNotified(map[string]any{"method": "notifications/progress"}) {
		t.Fatalf("notified %v", sc.notified)
	}
	if m, _, err := find("data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":1}"); err != nil || string(m.Result) != "1" { // no blank line at the end
		t.Fatalf("the last event: %v", err)
	}
	if _, _, err := find("data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\n"); err == nil {
		t.Fatal("an answer to another id was taken")
	}
}

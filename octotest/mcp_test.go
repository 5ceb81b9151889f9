package octotest

import (
	"net/http"
	"testing"
)

// An answer written as an event stream is read event by event: notifications before the
// answer (progress, logs) are passed over, and the answer is the event with the request's id.
func TestTheAnswerIsFoundInAnEventStream(t *testing.T) {
	h := &httpAnswer{status: 200, header: http.Header{"Content-Type": {"text/event-stream"}}, body: []byte(
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
			": a comment\n" +
			"id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\n" + // one message over two data lines
			"data: \"result\":{\"ok\":true}}\n\n")}
	m, err := findAnswer(h, "7")
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Result) != `{"ok":true}` {
		t.Fatalf("result %s", m.Result)
	}
	h.body = []byte("data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":1}") // no blank line at the end
	if m, err := findAnswer(h, "7"); err != nil || string(m.Result) != "1" {
		t.Fatalf("the last event: %v", err)
	}
	h.body = []byte("data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\n")
	if _, err := findAnswer(h, "7"); err == nil {
		t.Fatal("an answer to another id was taken")
	}
}

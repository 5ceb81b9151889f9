package client_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// fake is a real HTTP server scripted by a test: it answers initialize and
// notifications itself, and hands every other POSTed request to answer.
// It records what it received.
type fake struct {
	t      testing.TB
	srv    *httptest.Server
	answer func(w http.ResponseWriter, r *http.Request, m jsonrpc.Message)

	mu       sync.Mutex
	received []jsonrpc.Message
	inits    int
	deletes  int
	gets     int
	// expired makes every request of a session before this count 404.
	expired int
	// onGet serves GET requests (the standalone stream); nil answers 405.
	onGet func(w http.ResponseWriter, r *http.Request)
}

func newFake(t testing.TB, answer func(w http.ResponseWriter, r *http.Request, m jsonrpc.Message)) *fake {
	f := &fake{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) url() string { return f.srv.URL + "/mcp" }

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		f.mu.Lock()
		f.deletes++
		f.mu.Unlock()
		return
	case http.MethodGet:
		f.mu.Lock()
		f.gets++
		onGet := f.onGet
		f.mu.Unlock()
		if onGet != nil {
			onGet(w, r)
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	msgs, _, perr := jsonrpc.Decode(body)
	if perr != nil || len(msgs) != 1 {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	m := msgs[0]
	f.mu.Lock()
	f.received = append(f.received, m)
	inits, expired := f.inits, f.expired
	if m.Method == "initialize" {
		f.inits++
		inits = f.inits
	}
	f.mu.Unlock()
	switch {
	case m.Method == "initialize":
		w.Header().Set(mcp.HeaderSessionID, fmt.Sprintf("session-%d", inits))
		writeJSON(w, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`)))
	case r.Header.Get(mcp.HeaderSessionID) != fmt.Sprintf("session-%d", inits) || inits <= expired:
		http.Error(w, "session not found", http.StatusNotFound)
	case m.Kind != jsonrpc.KindRequest:
		w.WriteHeader(http.StatusAccepted)
	default:
		f.answer(w, r, m)
	}
}

// count returns how many received messages have method.
func (f *fake) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.received {
		if m.Method == method {
			n++
		}
	}
	return n
}

// find returns the first received message with method.
func (f *fake) find(method string) (jsonrpc.Message, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.received {
		if m.Method == method {
			return m, true
		}
	}
	return jsonrpc.Message{}, false
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// result answers m with a result.
func result(w http.ResponseWriter, m jsonrpc.Message, result string) {
	writeJSON(w, jsonrpc.AppendResult(nil, m.ID, []byte(result)))
}

// sse writes events, flushing each.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		_, _ = io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

func message(msg []byte) string {
	return "event: message\ndata: " + strings.ReplaceAll(string(msg), "\n", "\ndata: ") + "\n\n"
}

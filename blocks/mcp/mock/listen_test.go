package mock_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/config"
)

// bigURI is a resource's address long enough that its updates fill a connection's buffers
// after a few hundred.
var bigURI = "docs://" + strings.Repeat("a", 32<<10)

// listenRequest is a 2026-07-28 subscriptions/listen for bigURI's updates, as an HTTP request.
func listenRequest(host string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` +
		`"notifications":{"resourceSubscriptions":["` + bigURI + `"]}}}`
	return "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: subscriptions/listen\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
}

// A listen stream over HTTP whose client never reads gives its place under the cap up once it
// falls a queue behind, long before the connector's write timeout (a minute here) would close
// its connection; a new listener is then served.
func TestAListenStreamNobodyReadsGivesItsPlaceUpOverHTTP(t *testing.T) {
	s := serveYAML(t, strings.Replace(flowYAML(resourceSettings(0)),
		"settings: { port: 0, host: 127.0.0.1 }", "settings: { port: 0, host: 127.0.0.1, writeTimeout: 1m }", 1))
	host := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	// The client that never reads, past its answer's head.
	stalled, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close() // before the server stops: its write to this client then fails
	if _, err := stalled.Write([]byte(listenRequest(host))); err != nil {
		t.Fatal(err)
	}
	// Its answer's head is all it reads (4 KiB at most), to know it holds the place.
	_ = stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReaderSize(stalled, 4096), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the listener that will not read: %v %v", resp, err)
	}
	// listen opens another listener and returns its status.
	listen := func() int {
		t.Helper()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(listenRequest(host))); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode // the body is left unread: an open stream's would never end
	}
	if status := listen(); status != http.StatusServiceUnavailable {
		t.Fatalf("a second listener while one listens: %d, want 503 (the cap is 1)", status)
	}
	live := s.live()
	for i := 0; ; i++ {
		if _, err := update(live, settingsNode(t, resourceSettings(i+1)), config.Where{File: "flow.yaml"}); err != nil {
			t.Fatal(err)
		}
		if i%20 == 19 && listen() == http.StatusOK {
			return
		}
		if i > 2000 {
			t.Fatal("2000 updates later, the listener that never reads still holds its place")
		}
	}
}

// resourceSettings is a server of one listener whose one resource, bigURI, says n: each n is an
// update of it.
func resourceSettings(n int) string {
	return fmt.Sprintf("maxSessions: 1\nresources:\n  - { uri: %q, name: big, text: \"version %d\" }\n", bigURI, n)
}

package router_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// progressParams are a notifications/progress's params.
type progressParams struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// stepsAndAWait is a tool that reports its three steps and, between the first two, calls an API
// slow enough for http-request to report its own waiting (each second).
const stepsAndAWait = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: sync
            process:
              - type: progress
                settings: { progress: '1', total: '3', message: 'asking the API' }
              - type: http-request
                settings: { url: '%s', timeout: 10s }
              - type: progress
                settings: { progress: '2', total: '3', message: 'saving' }
              - type: progress
                settings: { progress: '3', total: '3', message: 'done' }
              - type: set-payload
                settings: { value: '"synced"' }
`

// A tool's own steps and a block's report of its wait are one sequence on one scale: the
// wait is placed between the step before it and the step after, every notification after the
// first step carries the steps' total, and the last step is heard.
func TestStepsAndABlocksWaitAreOneGrowingSequenceWithOneTotal(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2200 * time.Millisecond)
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer slow.Close()
	_, base := runtimetest.Serve(t, fmt.Sprintf(stepsAndAWait, 0, slow.URL), "api", nil)
	// Read off the wire, in the order sent: a client library may hand notifications to its
	// handlers on goroutines of their own.
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sync","arguments":{},"_meta":{"progressToken":"p1"}}}`
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var heard []progressParams
	sc := bufio.NewScanner(resp.Body)
	result := false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var msg struct {
			Method string          `json:"method"`
			Params progressParams  `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		switch {
		case msg.Method == "notifications/progress":
			heard = append(heard, msg.Params)
		case msg.Result != nil:
			result = true
		}
	}
	if !result {
		t.Fatal("no result")
	}
	var seq string
	for _, p := range heard {
		seq += fmt.Sprintf("%.2f/%g %s; ", p.Progress, p.Total, p.Message)
	}
	if len(heard) < 5 {
		t.Fatalf("heard %d notifications, want the 3 steps and at least 2 of the wait: %s", len(heard), seq)
	}
	for i, p := range heard {
		if i > 0 && p.Progress <= heard[i-1].Progress {
			t.Fatalf("progress does not grow at notification %d: %s", i+1, seq)
		}
		if p.Total != 3 {
			t.Fatalf("notification %d has total %g, want the steps' 3: %s", i+1, p.Total, seq)
		}
	}
	first, last := heard[0], heard[len(heard)-1]
	if first.Progress != 1 || last.Progress != 3 || last.Message != "done" {
		t.Fatalf("want 1 of 3 first and 3 of 3 (done) last: %s", seq)
	}
	if wait := heard[1]; wait.Progress <= 1 || wait.Progress >= 2 || wait.Message == "" {
		t.Fatalf("the wait is not between the first step and the second: %s", seq)
	}
}

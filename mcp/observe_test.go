package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// tally is a Probes that counts what each probe was told, by its labels.
type tally struct {
	mu    sync.Mutex
	made  []string       // the probes asked for
	count map[string]int // "method tool: fail"
}

type tallyProbe struct {
	t     *tally
	label string
}

func (p tallyProbe) Done(start time.Time, fail string) {
	if start.IsZero() || time.Since(start) < 0 {
		panic("a probe was told no start")
	}
	p.t.mu.Lock()
	p.t.count[p.label+": "+fail]++
	p.t.mu.Unlock()
}

func (t *tally) probes(method, tool string) mcp.Probe {
	t.made = append(t.made, method+" "+tool)
	return tallyProbe{t, strings.TrimSpace(method + " " + tool)}
}

func TestEveryRequestIsObservedByMethodAndToolWithHowItEnded(t *testing.T) {
	tl := &tally{count: map[string]int{}}
	s := mcptest.RouterServer(t)
	s.Probes = tl.probes
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"no-such-tool"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"made/up"}`,
		`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"nope://x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		msgs, _, err := jsonrpc.Decode([]byte(body))
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%s: %v", body, err)
		}
		s.Handle(context.Background(), &msgs[0].Request, nil)
	}
	want := map[string]int{
		"initialize: ":                       1,
		"tools/list: ":                       1,
		"tools/call echo: ":                  2,
		"tools/call weather: tool error":     1, // an isError result: the arguments broke its schema
		"tools/call fail: internal error":    1,
		"tools/call: tool error":             1, // an unknown tool is an isError result, under no tool's name
		"tools/call: invalid params":         1, // no name
		"other: method not found":            1, // a client's own method name is never a label
		"resources/read: resource not found": 1,
	}
	for k, n := range want {
		if tl.count[k] != n {
			t.Errorf("%q counted %d times, want %d", k, tl.count[k], n)
		}
	}
	if len(tl.count) != len(want) {
		t.Errorf("counted %v, want only %v (a notification is not a request)", tl.count, want)
	}
	t.Run("probes are made once: each method's at the first request, a tool's at its first call", func(t *testing.T) {
		joined := strings.Join(tl.made, ",")
		for _, p := range []string{"tools/call echo", "tools/call weather", "tools/call fail", "initialize ", "other "} {
			if strings.Count(joined, p) != 1 {
				t.Errorf("probe %q made %d times: %s", p, strings.Count(joined, p), joined)
			}
		}
		if strings.Contains(joined, "no-such-tool") {
			t.Error("a probe was made for a tool the server does not have")
		}
	})
}

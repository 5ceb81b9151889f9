package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// numbersConfig is a router whose tools hand numbers through a branch: echo
// returns its arguments, next computes with them; /calc does the same on a
// plain HTTP flow, whose body is decoded by the runtime rather than the router.
const numbersConfig = `
service: { name: numbers }
env:
  - { name: HTTP_PORT, default: "8080" }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: numbers
        tools:
          - name: echo
            inputSchema: '{"type":"object","properties":{"n":{"type":"number"}}}'
            outputSchema: '{"type":"object","properties":{"n":{"type":"number"}}}'
            process:
              - type: set-payload
                settings: { value: 'body' }
          - name: next
            inputSchema: '{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}'
            process:
              - type: set-payload
                settings: { value: '{"next": body.n + 1, "big": body.n > 5}' }
  - name: calc
    source: { connector: api, type: http, settings: { path: /calc } }
    process:
      - type: set-payload
        settings: { value: '{"n": body.n, "next": body.n + 1, "big": body.n > 5}' }
`

// runConfig writes a config to a temporary folder and serves it on a free
// port given through HTTP_PORT; it returns the base URL.
func runConfig(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir)
	return "http://127.0.0.1:" + port
}

// Numbers go through a router branch as the client wrote them: integers past
// 2^53 and past int64 are not rounded through float64 on the way, and a
// number no float64 can hold is refused with a result naming it.
func TestRouterToolsKeepNumbersExact(t *testing.T) {
	base := runConfig(t, numbersConfig)
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	echoed := func(n string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":` + n + `}"}],"structuredContent":{"n":` + n + `}}}`
	}
	cases := []struct{ name, body, want string }{
		{"2^53+1 comes back exact", call("echo", `{"n":9007199254740993}`), echoed("9007199254740993")},
		{"-(2^53+1) comes back exact", call("echo", `{"n":-9007199254740993}`), echoed("-9007199254740993")},
		{"an integer past int64 comes back exact", call("echo", `{"n":12345678901234567890}`), echoed("12345678901234567890")},
		{"0.1 comes back as 0.1", call("echo", `{"n":0.1}`), echoed("0.1")},
		{"1e400 is an error result naming the number", call("echo", `{"n":1e400}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments for tool \"echo\": number 1e400 is out of range"}],"isError":true}}`},
		{"arithmetic and comparison on 2^53+1 are exact", call("next", `{"n":9007199254740993}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"big\":true,\"next\":9007199254740994}"}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, "POST", base+"/mcp", "application/json", c.body)
			if a.status != 200 || a.body != c.want {
				t.Fatalf("got %d\n%s\nwant\n%s", a.status, a.body, c.want)
			}
		})
	}
	t.Run("a plain HTTP flow computes on the exact value", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":9007199254740993}`)
		if want := `{"big":true,"n":9007199254740993,"next":9007199254740994}`; a.status != 200 || a.body != want {
			t.Fatalf("got %d %s, want 200 %s", a.status, a.body, want)
		}
	})
	t.Run("a plain HTTP body with 1e400 is a 400 naming the number", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":1e400}`)
		if want := `{"error":"invalid JSON body: number 1e400 is out of range"}`; a.status != 400 || a.body != want {
			t.Fatalf("got %d %s, want 400 %s", a.status, a.body, want)
		}
	})
}

package e2e

// The last loose ends of issue 8: numbers no consumer should spend more than
// linear work on, a dropped event stream's writer, plain JSON answers at the
// shutdown deadline.

import (
	"strings"
	"testing"
)

// hostileNumbers are numbers a client can write to make a server work: a
// million-digit integer (beyond float64; exact arithmetic on it took seconds
// of schema validation), 1e400 (beyond float64), a million-digit decimal
// that float64 can hold, and 1e-999999, short but a million digits of
// exact arithmetic away from its float64 value, 0.
var hostileNumbers = []struct {
	name, number string
	problem      string // what the argument's refusal says; empty: accepted as 0
}{
	{"a million-digit integer", strings.Repeat("9", 1_000_000),
		"number " + strings.Repeat("9", 32) + "… is longer than 1000 characters"},
	{"1e400", "1e400", "number 1e400 is out of range"},
	{"a million-digit decimal", "0." + strings.Repeat("0", 999_998) + "1",
		"number 0." + strings.Repeat("0", 30) + "… is longer than 1000 characters"},
	{"1e-999999", "1e-999999", ""},
}

// TestHostileNumbersAreRefusedAtDecode sends each hostile number as a tool
// argument to a router and to a mock: each is refused when the arguments are
// decoded, with a failed call naming its first characters, or (1e-999999)
// taken as the float64 it is, 0.
func TestHostileNumbersAreRefusedAtDecode(t *testing.T) {
	base, _ := runConfig(t, numbersConfig)
	mockURL, _ := serveMockSettings(t, `  tools:
    - name: echo
      inputSchema: '{"type":"object","properties":{"n":{"type":"number","minimum":-1,"maximum":1e300}}}'
      result: '{"n":{{args.n}}}'
`)
	sid := mcpInit(t, mockURL, "2025-06-18")
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`
	}
	failed := func(text string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.ReplaceAll(text, `"`, `\"`) + `"}],"isError":true}}`
	}
	for _, n := range hostileNumbers {
		t.Run("the router refuses "+n.name, func(t *testing.T) {
			want := failed(`invalid arguments for tool "echo": ` + n.problem)
			if n.problem == "" {
				want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":0}"}],"structuredContent":{"n":0}}}`
			}
			a := do(t, "POST", base+"/mcp", "application/json", call(`{"n":`+n.number+`}`))
			if a.status != 200 || a.body != want {
				t.Fatalf("got %d\n%.400s\nwant\n%s", a.status, a.body, want)
			}
		})
		t.Run("the mock refuses "+n.name, func(t *testing.T) {
			want := failed("Invalid arguments for tool echo: " + n.problem)
			if n.problem == "" {
				want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":0}"}]}}`
			}
			a := mcpPost(t, mockURL, sid, "2025-06-18", call(`{"n":`+n.number+`}`), "Accept", "application/json")
			if a.status != 200 || a.body != want {
				t.Fatalf("got %d\n%.400s\nwant\n%s", a.status, a.body, want)
			}
		})
	}
	t.Run("a plain HTTP body with a million-digit decimal is a 400 naming it", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":`+hostileNumbers[2].number+`}`)
		want := `{"error":"invalid JSON body: ` + hostileNumbers[2].problem + `"}`
		if a.status != 400 || a.body != want {
			t.Fatalf("got %d %.400s, want 400 %s", a.status, a.body, want)
		}
	})
}

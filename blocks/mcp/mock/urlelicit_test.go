package mock_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
)

// linking is a server whose tools send the user to a page (URL-mode elicitation).
const linking = `
tools:
  - name: connect
    description: Connects a calendar
    inputSchema: '{"type":"object","properties":{"user":{"type":"string"}}}'
    steps:
      - elicit: "Connect the calendar of {{args.user}}"
        mode: url
        url: "https://calendar.example.com/connect?user={{args.user}}"
        as: link
        completeAfterMs: 20
        onDecline: "{{args.user}} did not connect"
    result: "connected: {{args.link.action}}"
  - name: list_files
    description: Needs a sign-in first
    steps:
      - { elicit: "Sign in to Example Co first", mode: url, url: "https://files.example.com/signin?elicitation={{elicitationId}}", required: true, completeAfterMs: 1500 }
    result: files listed
  - name: impatient
    description: Waits little for the answer
    steps:
      - { elicit: "Open it", mode: url, url: "https://example.com/slow", timeoutMs: 300 }
    result: never
`

// urlClient is a Go SDK client that answers URL elicitations with action and records what it
// was asked and which completions it heard of.
type urlClient struct {
	action   string
	mu       sync.Mutex
	asked    []*sdk.ElicitParams
	complete chan string
	gaveUp   chan struct{} // a never-answering client's request was cancelled by the server
}

func newURLClient(action string) *urlClient {
	return &urlClient{action: action, complete: make(chan string, 8), gaveUp: make(chan struct{}, 8)}
}

// options declares elicitation in the given modes (none: the SDK's default, form only).
func (c *urlClient) options(modes ...string) *sdk.ClientOptions {
	o := &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, req.Params)
			c.mu.Unlock()
			if c.action == "" { // never answers: waits until the server gives up
				<-ctx.Done()
				c.gaveUp <- struct{}{}
				return nil, ctx.Err()
			}
			return &sdk.ElicitResult{Action: c.action}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
			c.complete <- req.Params.ElicitationID
		},
	}
	if len(modes) > 0 {
		caps := &sdk.ElicitationCapabilities{}
		for _, m := range modes {
			switch m {
			case "form":
				caps.Form = &sdk.FormElicitationCapabilities{}
			case "url":
				caps.URL = &sdk.URLElicitationCapabilities{}
			}
		}
		o.Capabilities = &sdk.ClientCapabilities{Elicitation: caps}
	}
	return o
}

func (c *urlClient) last(t *testing.T) *sdk.ElicitParams {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == 0 {
		t.Fatal("the client was never asked")
	}
	return c.asked[len(c.asked)-1]
}

// completed waits for the completion notification of id.
func (c *urlClient) completed(t *testing.T, id string) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case got := <-c.complete:
			if got == id {
				return
			}
			t.Errorf("notifications/elicitation/complete for %q, want %q", got, id)
		case <-deadline:
			t.Fatalf("no notifications/elicitation/complete for %q", id)
		}
	}
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return strings.Join(texts(res), "\n"), res.IsError
}

// TestURLElicitationOnASession: at 2025-11-25 the step is an elicitation/create in mode url
// with a fresh elicitationId; the user's answer decides the call, and an accepted link is
// followed by notifications/elicitation/complete.
func TestURLElicitationOnASession(t *testing.T) {
	s := serve(t, linking)
	t.Run("an accepted link is completed, notified and then answered", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connect(t, s.url, c.options("form", "url"))
		text, isErr := callText(t, cs, "connect", map[string]any{"user": "ana"})
		if isErr || text != "connected: accept" {
			t.Fatalf("result %q (isError %v)", text, isErr)
		}
		p := c.last(t)
		if p.Mode != "url" || p.URL != "https://calendar.example.com/connect?user=ana" ||
			p.Message != "Connect the calendar of ana" || len(p.ElicitationID) != 32 || p.RequestedSchema != nil {
			t.Fatalf("asked %s", jsonOf(p))
		}
		c.completed(t, p.ElicitationID)
		callText(t, cs, "connect", map[string]any{"user": "bo"})
		if next := c.last(t).ElicitationID; next == p.ElicitationID {
			t.Fatalf("a second elicitation reused the id %s", next)
		}
	})
	for _, tc := range []struct{ action, want string }{
		{"decline", "ana did not connect"},
		{"cancel", "The user dismissed the request to open https://calendar.example.com/connect?user=ana"},
	} {
		t.Run("a "+tc.action+" fails the call with its text", func(t *testing.T) {
			cs := connect(t, s.url, newURLClient(tc.action).options("url"))
			if text, isErr := callText(t, cs, "connect", map[string]any{"user": "ana"}); !isErr || text != tc.want {
				t.Fatalf("result %q (isError %v), want the failed call %q", text, isErr, tc.want)
			}
		})
	}
	t.Run("a client that declares form mode only is not sent the link", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connect(t, s.url, c.options("form"))
		for _, tool := range []string{"connect", "list_files"} {
			text, isErr := callText(t, cs, tool, map[string]any{"user": "ana"})
			if !isErr || !strings.Contains(text, "did not declare elicitation.url") {
				t.Fatalf("%s: result %q (isError %v)", tool, text, isErr)
			}
		}
		if len(c.asked) != 0 {
			t.Fatalf("the client was asked %s", jsonOf(c.asked))
		}
	})
	t.Run("a client that never answers gets the step's timeout, and the question is cancelled", func(t *testing.T) {
		c := newURLClient("")
		cs := connect(t, s.url, c.options("url"))
		text, isErr := callText(t, cs, "impatient", nil)
		if !isErr || text != "The client did not answer elicitation/create within 300 ms" {
			t.Fatalf("result %q (isError %v)", text, isErr)
		}
		select { // notifications/cancelled ended the client's handler while the session is open
		case <-c.gaveUp:
		case <-time.After(15 * time.Second):
			t.Fatal("the client's elicitation was never cancelled")
		}
	})
	t.Run("a 2025-06-18 session has no URL mode: the call fails saying so", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connectAt(t, s.url, c.options("url"), mcp.Version20250618)
		text, isErr := callText(t, cs, "connect", map[string]any{"user": "ana"})
		if !isErr || !strings.Contains(text, "protocol version 2025-06-18 does not have") || len(c.asked) != 0 {
			t.Fatalf("result %q (isError %v), asked %d", text, isErr, len(c.asked))
		}
	})
}

// TestURLElicitationRequiredError: a required step answers -32042 listing the elicitation,
// notifies its completion on the session's stream, and lets the retried call through.
func TestURLElicitationRequiredError(t *testing.T) {
	s := serve(t, linking)
	c := newURLClient("accept")
	cs := connect(t, s.url, c.options("url"))
	ctx := testCtx(t)
	first := time.Now()
	id := requiredElicitation(t, cs, ctx)

	// Before the interaction is done a retry gets the same elicitation again.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_files"})
	if err != nil {
		if again := requiredFrom(t, err); again != id {
			t.Fatalf("the retry listed elicitation %s, want the same %s", again, id)
		}
	} else if time.Since(first) < 1500*time.Millisecond {
		t.Fatalf("the call passed %v after -32042, before completeAfterMs: %s", time.Since(first), jsonOf(res))
	}
	c.completed(t, id)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_files"})
	if err != nil || texts(res)[0] != "files listed" {
		t.Fatalf("after completion: %v %s", err, jsonOf(res))
	}
	if len(c.asked) != 0 {
		t.Fatalf("the -32042 form asked the client during the call: %s", jsonOf(c.asked))
	}

	// Another session has its own elicitation.
	other := connect(t, s.url, newURLClient("accept").options("url"))
	if id2 := requiredElicitation(t, other, ctx); id2 == id {
		t.Fatal("two sessions share an elicitationId")
	}
}

func requiredElicitation(t *testing.T, cs *sdk.ClientSession, ctx context.Context) string {
	t.Helper()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_files"})
	return requiredFrom(t, err)
}

// requiredFrom checks err is -32042 listing one URL elicitation and returns its id.
func requiredFrom(t *testing.T, err error) string {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeURLElicitationRequired {
		t.Fatalf("err = %v, want -32042", err)
	}
	var data struct {
		Elicitations []sdk.ElicitParams `json:"elicitations"`
	}
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || len(data.Elicitations) != 1 {
		t.Fatalf("data = %s (%v)", rpcErr.Data, err)
	}
	e := data.Elicitations[0]
	if e.Mode != "url" || e.URL != "https://files.example.com/signin?elicitation="+e.ElicitationID || e.Message != "Sign in to Example Co first" || len(e.ElicitationID) != 32 {
		t.Fatalf("elicitation %s", jsonOf(e))
	}
	return e.ElicitationID
}

// TestURLElicitationOn20260728: the stateless revision asks through input_required (no
// elicitationId, no notification, no -32042), and a client without elicitation.url gets -32021.
func TestURLElicitationOn20260728(t *testing.T) {
	s := serve(t, linking)
	t.Run("the link is an input request and the accepted retry answers", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connectAt(t, s.url, c.options("url"), "")
		if v := cs.InitializeResult().ProtocolVersion; v != mcp.Version20260728 {
			t.Fatalf("protocol version %q", v)
		}
		for _, tool := range []string{"connect", "list_files"} {
			text, isErr := callText(t, cs, tool, map[string]any{"user": "ana"})
			if isErr || (text != "connected: accept" && text != "files listed") {
				t.Fatalf("%s: result %q (isError %v)", tool, text, isErr)
			}
			// 2026-07-28 has no elicitationId; a link that asks for one gets a fresh id.
			p := c.last(t)
			if p.Mode != "url" || p.ElicitationID != "" || !strings.HasPrefix(p.URL, "https://") ||
				tool == "list_files" && !regexp.MustCompile(`\?elicitation=[0-9a-f]{32}$`).MatchString(p.URL) {
				t.Fatalf("%s: asked %s", tool, jsonOf(p))
			}
		}
	})
	t.Run("a decline fails the call", func(t *testing.T) {
		cs := connectAt(t, s.url, newURLClient("decline").options("url"), "")
		if text, isErr := callText(t, cs, "connect", map[string]any{"user": "ana"}); !isErr || text != "ana did not connect" {
			t.Fatalf("result %q (isError %v)", text, isErr)
		}
	})
	t.Run("a client without elicitation.url gets -32021 naming it", func(t *testing.T) {
		cs := connectAt(t, s.url, newURLClient("accept").options("form"), "")
		_, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "connect", Arguments: map[string]any{"user": "ana"}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingCapability ||
			!strings.Contains(string(rpcErr.Data), `"requiredCapabilities":{"elicitation":{"url":{}}}`) {
			t.Fatalf("err = %v (%s)", err, rpcErr.Data)
		}
	})
}

package mock_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
)

// linkEdges holds url elicit steps at their edges: no notification, a link an argument breaks,
// an optional step, and a prompt that needs a sign-in.
const linkEdges = `
tools:
  - name: quiet
    steps:
      - { elicit: Open it, mode: url, url: "https://example.com/quiet", notifyComplete: false }
    result: done
  - name: loud
    steps:
      - { elicit: Open it, mode: url, url: "https://example.com/loud" }
    result: done
  - name: hosted
    inputSchema: '{"type":"object","properties":{"host":{"type":"string"}}}'
    steps:
      - { elicit: Open it, mode: url, url: "https://{{args.host}}/x" }
    result: done
  - name: maybe
    steps:
      - { elicit: Open it, mode: url, url: "https://example.com/maybe", optional: true, as: link }
    result: "done{{args.link.action}}"
prompts:
  - name: signed_in
    description: Needs a sign-in
    steps:
      - { elicit: Sign in first, mode: url, url: "https://example.com/signin", required: true }
    messages: [ { text: welcome } ]
`

func TestURLElicitationEdges(t *testing.T) {
	s := serve(t, linkEdges)
	t.Run("notifyComplete false sends no completion; the default does", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connect(t, s.url, c.options("url"))
		if text, isErr := callText(t, cs, "quiet", nil); isErr || text != "done" {
			t.Fatalf("quiet: %q", text)
		}
		if text, isErr := callText(t, cs, "loud", nil); isErr || text != "done" {
			t.Fatalf("loud: %q", text)
		}
		c.mu.Lock()
		quiet, loud := c.asked[0].ElicitationID, c.asked[1].ElicitationID
		c.mu.Unlock()
		// The client handles notifications in the order they come, and quiet's would have come
		// first: every completion up to loud's is looked at.
		for {
			select {
			case id := <-c.complete:
				if id == quiet {
					t.Fatalf("quiet sent a completion for %s", id)
				}
				if id == loud {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("loud sent no completion for %s", loud)
			}
		}
	})
	t.Run("a link an argument leaves without a host fails the call and asks nothing", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connect(t, s.url, c.options("url"))
		text, isErr := callText(t, cs, "hosted", map[string]any{"host": ""})
		if !isErr || text != `This tool's link rendered to "https:///x", which is not an absolute http or https URL` || len(c.asked) != 0 {
			t.Fatalf("result %q (isError %v), asked %d", text, isErr, len(c.asked))
		}
	})
	t.Run("on 2026-07-28 an optional url step is skipped for a form-only client", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connectAt(t, s.url, c.options("form"), "")
		if text, isErr := callText(t, cs, "maybe", nil); isErr || text != "done" || len(c.asked) != 0 {
			t.Fatalf("result %q (isError %v), asked %d", text, isErr, len(c.asked))
		}
	})
	t.Run("a prompt's required step answers prompts/get with -32042", func(t *testing.T) {
		c := newURLClient("accept")
		cs := connect(t, s.url, c.options("url"))
		_, err := cs.GetPrompt(testCtx(t), &sdk.GetPromptParams{Name: "signed_in"})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeURLElicitationRequired ||
			!strings.Contains(string(rpcErr.Data), `"url":"https://example.com/signin"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// Over stdio the session's one stream carries the completion of a -32042 elicitation.
func TestURLElicitationRequiredOverStdio(t *testing.T) {
	toServer, fromServer, _ := stdioServer(t, linking, "")
	c := newURLClient("accept")
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, c.options("url"))
	ctx := testCtx(t)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: fromServer, Writer: toServer},
		&sdk.ClientSessionOptions{ProtocolVersion: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	id := requiredElicitation(t, cs, ctx)
	c.completed(t, id)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_files"})
	if err != nil || texts(res)[0] != "files listed" {
		t.Fatalf("after completion: %v %s", err, jsonOf(res))
	}
}

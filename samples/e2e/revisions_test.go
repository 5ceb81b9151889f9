package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionRevision makes the Go SDK client open with initialize at 2025-11-25, for the tests
// that read the session revisions' wire; left to itself v1.8 opens with server/discover and
// speaks the stateless 2026-07-28.
var sessionRevision = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// serveConformance runs `octo serve samples/conformance` on a free port: the mock whose
// fixtures the official conformance suite calls, input_required ones included.
func serveConformance(t *testing.T) string {
	t.Helper()
	url, _ := serveConformanceProc(t)
	return url
}

// serveConformanceProc is serveConformance with the process, for the tests that stop it.
func serveConformanceProc(t *testing.T, args ...string) (string, *proc) {
	t.Helper()
	port := freePort(t)
	p := startOcto(t, nil, append([]string{"serve", "samples/conformance", "Conformance", "--port", strconv.Itoa(port)}, args...)...)
	if m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(p.Log()); m != nil {
		return m[1], p
	}
	t.Fatalf("no address in the log:\n%s", p.Log())
	return "", nil
}

// TestGoSDKClientSpeaksEveryRevisionOnOneURL: on one URL, the router and the mock serve the
// Go SDK v1.8 client as it opens by default (server/discover, then 2026-07-28 requests with
// their _meta and headers) and the same client asking for a session revision (initialize).
func TestGoSDKClientSpeaksEveryRevisionOnOneURL(t *testing.T) {
	base, _ := runSample(t, "mcp-router")
	servers := []struct {
		name, url, tool string
		args            map[string]any
		session         string // the revision initialize gets for 2025-11-25
	}{
		{"router", base + "/mcp", "forecast", map[string]any{"city": "Lisbon"}, "2025-06-18"},
		{"mock", serveConformance(t), "test_simple_text", nil, "2025-11-25"},
	}
	for _, s := range servers {
		for _, rev := range []struct {
			name string
			opts *mcp.ClientSessionOptions
			want string
		}{{"default", nil, "2026-07-28"}, {"session", sessionRevision, s.session}} {
			t.Run(s.name+"/"+rev.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				wire := &wireLog{}
				client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url,
					HTTPClient: &http.Client{Transport: wire}}, rev.opts)
				if err != nil {
					t.Fatalf("connect: %v\n%s", err, exchangesText(wire.exchanges()))
				}
				defer cs.Close()
				if v := cs.InitializeResult().ProtocolVersion; v != rev.want {
					t.Fatalf("protocol version %q, want %q", v, rev.want)
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
				if err != nil || res.IsError || len(res.Content) == 0 {
					t.Fatalf("tools/call %s = %+v, %v\n%s", s.tool, res, err, exchangesText(wire.exchanges()))
				}
				first := wire.exchanges()[0]
				if opened := first.rpc == "server/discover"; opened != (rev.opts == nil) {
					t.Fatalf("first request: %s", first)
				}
			})
		}
	}
}

// TestGoSDKClientAnswersTheMocksInputRequests: a 2026-07-28 tool call that needs the user is
// an input_required result; the SDK asks its elicitation handler and sends the call again
// with the answer and the signed requestState, and gets the tool's answer.
func TestGoSDKClientAnswersTheMocksInputRequests(t *testing.T) {
	url := serveConformance(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			if strings.Contains(r.Params.Message, "color") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "teal"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ana"}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for tool, want := range map[string]string{
		"test_input_required_result_elicitation": "Hello, Ana!",
		"test_input_required_result_multi_round": "Ana likes teal",
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
		if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want {
			t.Fatalf("%s = %+v, %v; want %q", tool, res, err, want)
		}
	}
	if len(asked) != 3 {
		t.Fatalf("the handler was asked %q", asked)
	}
}

package session

import (
	"context"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/octo-run/octo/mcp"
)

// TestOfficialClientStateful drives the stateful server with the official Go
// SDK client over both HTTP transports: it probes with server/discover,
// falls back to initialize, opens the standalone stream, and reads every
// answer strictly.
func TestOfficialClientStateful(t *testing.T) {
	leakCheck(t)
	transports := []struct {
		name      string
		transport func(base string, hc *http.Client) sdk.Transport
		kind      Transport
		version   string
	}{
		{"Streamable HTTP", func(base string, hc *http.Client) sdk.Transport {
			return &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}
		}, TransportStreamable, mcp.Version20251125},
		{"legacy HTTP+SSE", func(base string, hc *http.Client) sdk.Transport {
			return &sdk.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: hc}
		}, TransportSSE, mcp.Version20251125},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s, _ := newStatefulServer(t)
			st := New(s, Options{})
			f := newFront(t, st)
			progress := make(chan float64, 8)
			changed := make(chan struct{}, 1)
			client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
					progress <- r.Params.Progress
				},
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
				ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": r.Params.Message}}, nil
				},
			})
			ctx := context.Background()
			// The session revisions are under test: the SDK would otherwise open with 2026-07-28.
			cs, err := client.Connect(ctx, tr.transport(f.srv.URL, f.client), &sdk.ClientSessionOptions{ProtocolVersion: mcp.Version20251125})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()

			t.Run("the handshake negotiates a version both speak", func(t *testing.T) {
				if v := cs.InitializeResult().ProtocolVersion; v != tr.version {
					t.Fatalf("negotiated %q", v)
				}
				sess := st.Session(cs.ID())
				if tr.kind == TransportSSE {
					sess = st.Sessions()[0]
				}
				if sess == nil || sess.Transport() != tr.kind || sess.ClientInfo().Name != "probe" {
					t.Fatalf("session %+v", sess)
				}
			})
			t.Run("the tool list reads", func(t *testing.T) {
				res, err := cs.ListTools(ctx, nil)
				if err != nil || len(res.Tools) != 8 || res.Tools[2].Name != "progress" {
					t.Fatalf("ListTools = %+v, %v", res, err)
				}
			})
			t.Run("a tool's progress reaches the client before its result", func(t *testing.T) {
				p := &sdk.CallToolParams{Name: "progress"}
				p.SetProgressToken("tok")
				res, err := cs.CallTool(ctx, p)
				if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "progressed" {
					t.Fatalf("CallTool = %+v, %v", res, err)
				}
				for want := 1.0; want <= 3; want++ {
					select {
					case got := <-progress:
						if got != want {
							t.Fatalf("progress %v, want %v", got, want)
						}
					case <-time.After(5 * time.Second):
						t.Fatal("no progress")
					}
				}
			})
			t.Run("the server can ask the client during a call", func(t *testing.T) {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "elicit"})
				want := `answer: {"action":"accept","content":{"name":"Who are you?"}}`
				if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != want {
					t.Fatalf("CallTool = %+v, %v", res.Content[0], err)
				}
			})
			t.Run("list_changed arrives on the standalone stream", func(t *testing.T) {
				// The SDK opens its GET stream in the background after the
				// handshake; a broadcast before that would find no stream.
				waitFor(t, "the standalone stream", func() bool {
					for _, s := range st.Sessions() {
						s.mu.Lock()
						open := s.stream != nil && !s.stream.IsClosed()
						s.mu.Unlock()
						if open {
							return true
						}
					}
					return false
				})
				st.ListChanged("tools")
				select {
				case <-changed:
				case <-time.After(5 * time.Second):
					t.Fatal("no list_changed")
				}
			})
			t.Run("closing the client ends the session", func(t *testing.T) {
				if err := cs.Close(); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the session to end", func() bool { return len(st.Sessions()) == 0 })
			})
		})
	}
}

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The ask sample served over stdio, as a client starts it: the official Go SDK client answers
// its form, its link and its sampling at 2025-06-18 (requests to the client over the pipe,
// while the call waits) and at 2026-07-28 (input_required rounds on the same pipe).
func TestTheAskSampleIsAnsweredOverStdioOnEveryRevision(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("revision "+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			asked := map[string]int{}
			client := mcp.NewClient(&mcp.Implementation{Name: "ask-e2e", Version: "1"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{},
					Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mode := req.Params.Mode
					if mode == "" { // a form, as MCP assumes
						mode = "form"
					}
					asked[mode+":"+req.Params.Message+req.Params.URL]++
					if req.Params.Mode == "url" {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				},
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					asked["sample:"+req.Params.Messages[0].Content.(*mcp.TextContent).Text]++
					return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e", Content: &mcp.TextContent{Text: "A cat opens doors."}}, nil
				},
			})
			cmd := exec.Command(octoBin, "run", "--config", "samples/mcp-ask", "--stdio")
			cmd.Dir, cmd.Env = repoRoot(), os.Environ()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr.String())
			}
			defer cs.Close()
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if v := cs.InitializeResult().ProtocolVersion; v != want {
				t.Fatalf("revision %q, want %q", v, want)
			}
			for _, c := range []struct {
				tool, arg, value, text, asked string
			}{
				{"delete_file", "path", "/tmp/a.txt", "Deleted /tmp/a.txt.", "form:Delete /tmp/a.txt?"},
				{"summarize", "text", "A long story.", "A cat opens doors.", "sample:Summarize in one sentence: A long story."},
				{"connect_tracker", "user", "ana", "Tracker sign-in for ana: decline.", "url:Sign in to the tracker to connect it.https://tracker.example.com/connect?user=ana"},
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{c.arg: c.value}})
				if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != c.text {
					t.Fatalf("%s: %v %+v\n%s", c.tool, err, res, stderr.String())
				}
				if asked[c.asked] != 1 {
					t.Errorf("%s: the client was asked %v, want %q once", c.tool, asked, c.asked)
				}
			}
		})
	}
}

// The guide's tool is the sample's, line for line.
func TestTheAskGuideShowsTheSample(t *testing.T) {
	guide := readmeConfig(t, docSection(t, "Ask the user or the model from a tool"))
	sample, err := os.ReadFile(filepath.Join(repoRoot(), "samples", "mcp-ask", "mcp-ask.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rest := string(sample)
	for line := range strings.SplitSeq(strings.TrimSpace(guide), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		i := strings.Index(rest, line)
		if i < 0 {
			t.Fatalf("the guide's line %q is not in samples/mcp-ask/mcp-ask.yaml (in its order)", line)
		}
		rest = rest[i+len(line):]
	}
}

// A client that does not answer within the ask's timeout fails the call, saying so, and the
// pipe serves the next call.
func TestAnAskNotAnsweredInTimeFailsTheCall(t *testing.T) {
	dir := t.TempDir()
	config := `connectors: [ { name: io, type: stdio } ]
flows:
  - name: mcp
    source: { connector: io }
    process:
      - type: mcp-router
        tools:
          - name: confirm
            description: asks, and waits a little
            process:
              - type: ask
                settings: { elicit: { message: "Sure?", schema: { type: object } }, timeout: 300ms }
              - type: set-payload
                settings: { value: 'vars.answer.action' }
`
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var calls int
	client := mcp.NewClient(&mcp.Implementation{Name: "slow", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if calls++; calls == 1 {
				<-ctx.Done() // the user went for coffee; the server gives up first
				return nil, ctx.Err()
			}
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	})
	cmd := exec.Command(octoBin, "run", "--config", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "The client did not answer elicitation/create within 300ms" {
		t.Fatalf("unanswered: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "cancel" {
		t.Fatalf("answered: %v %+v", err, res)
	}
}

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// readmeProgressConfig writes the "Progress from long tools" config into a folder of its own.
func readmeProgressConfig(t *testing.T) (dir, section string) {
	return readmeSectionConfig(t, "Progress from long tools")
}

// readmeSectionConfig writes the config of the README section titled title into a folder of
// its own.
func readmeSectionConfig(t *testing.T, title string) (dir, section string) {
	t.Helper()
	section = docSection(t, title)
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(readmeConfig(t, section)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, section
}

// readmeStreamAnswersAsPrinted runs the config of the README section titled title and sends
// its `curl -sN` line as curl sends it: the answer must be the stream printed under it. It
// returns the server's MCP URL and the line's body.
func readmeStreamAnswersAsPrinted(t *testing.T, title string) (url, body string) {
	t.Helper()
	dir, section := readmeSectionConfig(t, title)
	body, lines := readmeStream(t, section)
	want := strings.Join(lines, "\n")
	port := freePort(t)
	startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", dir)
	url = "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"

	a := do(t, "POST", url, "application/x-www-form-urlencoded", body, "Accept", "application/json, text/event-stream")
	if a.status != 200 || a.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q\n%s", a.status, a.header.Get("Content-Type"), a.body)
	}
	if got := strings.TrimRight(a.body, "\n"); got != want {
		t.Fatalf("the stream:\n%s\nthe README prints:\n%s", got, want)
	}
	return url, body
}

// The README's curl line, sent as curl sends it, answers with the stream printed under it:
// progress events first, in order, then the result. Without the token, the same call is one
// JSON body.
func TestReadmeProgressStreamAnswersAsPrinted(t *testing.T) {
	url, body := readmeStreamAnswersAsPrinted(t, "Progress from long tools")

	plain := strings.Replace(body, `,"_meta":{"progressToken":"r1"}`, "", 1)
	a := do(t, "POST", url, "application/json", plain, "Accept", "application/json, text/event-stream")
	if a.status != 200 || a.body != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Sales in Oslo are up 4%"}]}}` {
		t.Fatalf("without a token: %d %q\n%s", a.status, a.header.Get("Content-Type"), a.body)
	}
}

// progressLog gathers the progress notifications an SDK client hears.
type progressLog chan *mcp.ProgressNotificationParams

func (p progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p <- req.Params
}

// wait returns the next n notifications, failing after a bound.
func (p progressLog) wait(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case pr := <-p:
			got = append(got, fmt.Sprintf("%v %g/%g %s", pr.ProgressToken, pr.Progress, pr.Total, pr.Message))
		case <-time.After(10 * time.Second):
			t.Fatalf("heard %d progress notifications, want %d: %q", len(got), n, got)
		}
	}
	return got
}

// overBothTransports runs check with a Go SDK client that hears progress, connected to the
// config in dir over Streamable HTTP (octo started once, with env) and over stdio (octo started
// by the client with --stdio, as an AI app does).
func overBothTransports(t *testing.T, dir string, env func(port string) []string, check func(*testing.T, context.Context, *mcp.ClientSession, progressLog)) {
	withPort := func(port string) []string {
		var e []string
		if env != nil {
			e = env(port)
		}
		return append(e, "HTTP_PORT="+port)
	}
	port := strconv.Itoa(freePort(t))
	startOcto(t, withPort(port), "run", "--config", dir)
	connect := map[string]func(*testing.T, context.Context, *mcp.ClientOptions) *mcp.ClientSession{
		"over HTTP": func(t *testing.T, _ context.Context, opts *mcp.ClientOptions) *mcp.ClientSession {
			return runtimetest.ConnectMCP(t, "http://127.0.0.1:"+port+"/mcp", opts)
		},
		"over stdio": func(t *testing.T, ctx context.Context, opts *mcp.ClientOptions) *mcp.ClientSession {
			cs, _ := connectStdio(t, ctx, mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, opts),
				withPort(strconv.Itoa(freePort(t))), "run", "--config", dir, "--stdio")
			return cs
		},
	}
	for _, name := range []string{"over HTTP", "over stdio"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			heard := make(progressLog, 16)
			check(t, ctx, connect[name](t, ctx, &mcp.ClientOptions{ProgressNotificationHandler: heard.handler}), heard)
		})
	}
}

// The official Go SDK client asks for progress and hears it, then gets the result: over
// Streamable HTTP (an SSE answer) and over stdio (lines before the result).
func TestGoSDKClientHearsProgressFromALongTool(t *testing.T) {
	dir, _ := readmeProgressConfig(t)
	overBothTransports(t, dir, nil, func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, heard progressLog) {
		params := &mcp.CallToolParams{Name: "build_report", Arguments: map[string]any{"city": "Oslo"}}
		params.SetProgressToken("r1")
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Sales in Oslo are up 4%" {
			t.Fatalf("tools/call = %s %v", jsonText(res), err)
		}
		want := []string{"r1 1/2 collecting the figures of Oslo", "r1 1.6/2 waited 1s of 1.5s", "r1 2/2 writing the report"}
		if got := heard.wait(t, 3); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("progress heard:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// Without a token, no progress: the answer is a plain result.
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "build_report", Arguments: map[string]any{"city": "Rome"}}); err != nil || res.IsError {
			t.Fatalf("tools/call without a token = %s %v", jsonText(res), err)
		}
		select {
		case pr := <-heard:
			t.Fatalf("progress without a token: %s", jsonText(pr))
		default:
		}
	})
}

// The TypeScript SDK client asks for progress too, and hears it before the result, over
// Streamable HTTP and over stdio.
func TestTypeScriptSDKClientHearsProgressFromALongTool(t *testing.T) {
	node, nodeDir := typeScriptSDK(t)
	dir, _ := readmeProgressConfig(t)
	port := strconv.Itoa(freePort(t))
	startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir)
	runs := map[string][]string{
		"over HTTP":  {"http", "http://127.0.0.1:" + port + "/mcp"},
		"over stdio": {"stdio", octoBin, "run", "--config", dir, "--stdio"},
	}
	for _, name := range []string{"over HTTP", "over stdio"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, append([]string{"router-progress-client.mjs"}, runs[name]...)...)
			cmd.Dir = nodeDir
			cmd.Env = append(os.Environ(), "HTTP_PORT="+strconv.Itoa(freePort(t)))
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "ok: ") {
				t.Fatalf("node router-progress-client.mjs %s: %v\n%s", strings.Join(runs[name], " "), err, out)
			}
			t.Log(strings.TrimSpace(string(out)))
		})
	}
}

// slowAPI is a backend that holds each request until its caller goes, and says when a
// request arrived and when its context ended.
type slowAPI struct{ arrived, gone chan struct{} }

func newSlowAPI(t *testing.T) (*slowAPI, string) {
	api := &slowAPI{arrived: make(chan struct{}, 4), gone: make(chan struct{}, 4)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			api.gone <- struct{}{}
		case <-time.After(30 * time.Second):
			w.Write([]byte(`"too late"`))
		}
	}))
	t.Cleanup(srv.Close)
	return api, srv.URL
}

func (api *slowAPI) await(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("the backend never saw %s", what)
	}
}

const slowToolConfig = `service: { name: slow-tools }
env:
  - { name: HTTP_PORT, default: "8080" }
  - { name: BACKEND_URL }
connectors:
  - { name: web, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: mcp
    source: { connector: web, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: slow-tools
        tools:
          - name: lookup
            description: Ask the slow backend.
            process:
              - type: progress
                settings: { progress: "1", message: "asking the backend" }
              - type: http-request
                settings: { url: "${BACKEND_URL}", timeout: 1m }
`

// A client that gives up on a call cancels its branch: the http-request it waits on is cancelled,
// and the backend sees its request end. Over HTTP the client closes the call's stream; over
// stdio it sends notifications/cancelled.
func TestCancellingACallStopsItsBackendCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(slowToolConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	api, backend := newSlowAPI(t)
	overBothTransports(t, dir, func(string) []string { return []string{"BACKEND_URL=" + backend} }, func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, heard progressLog) {
		callCtx, stop := context.WithCancel(ctx)
		params := &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}}
		params.SetProgressToken(7)
		done := make(chan error, 1)
		go func() { _, err := cs.CallTool(callCtx, params); done <- err }()
		api.await(t, api.arrived, "the tool's request")
		heard.wait(t, 1)
		stop()
		api.await(t, api.gone, "its request end after the client cancelled")
		if err := <-done; err == nil {
			t.Fatal("the cancelled call returned a result")
		}
		// The session goes on: another call is answered.
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("after the cancel: %v", err)
		}
	})
}

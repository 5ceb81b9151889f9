package e2e

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const httpAPISection = "A tool server over your own API"

// httpAPIEnv gives samples/mcp-http-api a free port, and its tools the API served there.
func httpAPIEnv(t *testing.T) (port string, env []string) {
	port = strconv.Itoa(freePort(t))
	return port, []string{"HTTP_PORT=" + port, "API_URL=http://127.0.0.1:" + port + "/api"}
}

// runHTTPAPISample serves samples/mcp-http-api on a free port and returns its base URL.
func runHTTPAPISample(t *testing.T) string {
	port, env := httpAPIEnv(t)
	startOcto(t, env, "run", "--config", "samples/mcp-http-api")
	return "http://127.0.0.1:" + port
}

// The README section's lines, pasted against the built binary: the API's curl lines answer
// with the bodies and statuses printed, the MCP ones with the tool results (the catch's
// sentence included), the progress line with the stream printed, and the stdio pipe with its
// two lines.
func TestReadmeHTTPAPISampleAnswersAsPrinted(t *testing.T) {
	section := docSection(t, httpAPISection)
	base := runHTTPAPISample(t)

	t.Run("the curl lines", func(t *testing.T) {
		checkCurlTranscripts(t, base, section, 6)
	})

	t.Run("the progress stream", func(t *testing.T) {
		body, want := readmeStream(t, section)
		a := do(t, "POST", base+"/mcp", "application/x-www-form-urlencoded", body, "Accept", "application/json, text/event-stream")
		if got := strings.TrimRight(a.body, "\n"); a.status != 200 || got != strings.Join(want, "\n") {
			t.Fatalf("%d, the stream:\n%s\nthe README prints:\n%s", a.status, got, strings.Join(want, "\n"))
		}
	})

	t.Run("the stdio pipe", func(t *testing.T) {
		in, env, args, want := readmePipe(t, section)
		if len(in) != 2 || len(want) != 2 || len(args) == 0 || len(env) != 2 {
			t.Fatalf("the README pipe has %d lines in, %d answers, env %q and args %q", len(in), len(want), env, args)
		}
		// The README's port is for people; the test takes a free one, as the README's does. The
		// input ends at once: the call, which uses the API on HTTP, must still be answered.
		_, free := httpAPIEnv(t)
		checkPipe(t, free, args, in, want)
	})
}

// The official Go SDK client uses the sample's tools over Streamable HTTP and over stdio (octo
// started as a command, its API on a port of its own): the switch's two routes, the catch's
// answer to an unknown station, and progress before the report is filed.
func TestGoSDKClientUsesTheHTTPAPISample(t *testing.T) {
	apiOn := func(port string) []string { return []string{"API_URL=http://127.0.0.1:" + port + "/api"} }
	overBothTransports(t, "samples/mcp-http-api", apiOn, func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, heard progressLog) {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, []string{"stations", "weather", "file_report"}) {
			t.Fatalf("tools %q", names)
		}
		for _, c := range []struct {
			args    map[string]any
			isError bool
			text    string
		}{
			{map[string]any{"station": "oslo"}, false, `{"sky":"snow","station":"oslo","temperatureC":7}`},
			{map[string]any{"station": "lisbon", "when": "week"}, false, `{"days":[{"day":"Mon","highC":21,"lowC":14},{"day":"Tue","highC":19,"lowC":13},{"day":"Wed","highC":22,"lowC":15}],"station":"lisbon"}`},
			{map[string]any{"station": "rome"}, true, "there is no station named rome; try lisbon, oslo, paris"},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := res.Content[0].(*mcp.TextContent); res.IsError != c.isError || !ok || text.Text != c.text {
				t.Fatalf("weather %v: %s, want isError %v and %s", c.args, jsonText(res), c.isError, c.text)
			}
		}
		params := &mcp.CallToolParams{Name: "file_report", Arguments: map[string]any{"station": "paris", "text": "Grey and mild"}}
		params.SetProgressToken("f1")
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		if text, ok := res.Content[0].(*mcp.TextContent); res.IsError || !ok || text.Text != "Filed report paris-1 (3 words); highs this week up to 15C" {
			t.Fatalf("file_report: %s", jsonText(res))
		}
		got := heard.wait(t, 2)
		if want := []string{"f1 1/2 checking the week at paris", "f1 2/2 filing the report"}; !slices.Equal(got, want) {
			t.Fatalf("progress %q, want %q", got, want)
		}
	})
}

// The TypeScript SDK client (node/http-api-client.mjs) does the same over Streamable HTTP and
// over stdio, hearing the progress before the result.
func TestTypeScriptSDKClientUsesTheHTTPAPISample(t *testing.T) {
	node, nodeDir := typeScriptSDK(t)
	base := runHTTPAPISample(t)
	_, stdioEnv := httpAPIEnv(t)
	runs := map[string][]string{
		"over HTTP":  {"http", base + "/mcp"},
		"over stdio": {"stdio", octoBin, "run", "--config", "samples/mcp-http-api", "--stdio"},
	}
	for _, name := range []string{"over HTTP", "over stdio"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, append([]string{"http-api-client.mjs", repoRoot()}, runs[name]...)...)
			cmd.Dir = nodeDir
			cmd.Env = append(os.Environ(), stdioEnv...)
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "ok: ") {
				t.Fatalf("node http-api-client.mjs %s: %v\n%s", strings.Join(runs[name], " "), err, out)
			}
			t.Log(strings.TrimSpace(string(out)))
		})
	}
}

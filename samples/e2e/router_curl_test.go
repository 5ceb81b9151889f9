package e2e

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The README's curl lines, sent as curl sends them (form content type, no
// Accept), each with its exact answer.
func TestRouterSampleAnswersEveryDocumentedRequestExactly(t *testing.T) {
	base, _ := runSample(t, "mcp-router")
	const (
		caps     = `"capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"weather-tools","version":"1.0.0"}`
		toolJSON = `{"name":"forecast","title":"Weather forecast","description":"Return a short weather forecast for a city.","inputSchema":{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}},"outputSchema":{"type":"object","required":["city","summary"],"properties":{"city":{"type":"string"},"summary":{"type":"string"}}},"annotations":{"readOnlyHint":true,"openWorldHint":true}}`
	)
	cases := []struct {
		name, body string
		header     []string
		status     int
		want       string
	}{
		{"initialize answers the version asked for", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, nil, 200,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18",` + caps + `}}`},
		{"initialize without params answers 2024-11-05", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, nil, 200,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05",` + caps + `}}`},
		{"initialize with an unknown version answers 2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2030-01-01"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18",` + caps + `}}`},
		{"ping answers an empty object", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, nil, 200, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"tools/list lists every declared field", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil, 200,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + toolJSON + `]}}`},
		{"tools/call runs the branch and returns text and structured content", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`, nil, 200,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"Sunny, 24C\"}"}],"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}}}`},
		{"a wrong argument type is an isError result naming it", `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"forecast","arguments":{"city":3}}}`, nil, 200,
			`{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"invalid arguments for tool \"forecast\": argument \"city\": expected string, got number"}],"isError":true}}`},
		{"a missing argument is an isError result naming it", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"forecast","arguments":{}}}`, nil, 200,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"invalid arguments for tool \"forecast\": missing required argument \"city\""}],"isError":true}}`},
		{"an unknown tool is an isError result", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Unknown tool: nope"}],"isError":true}}`},
		{"resources/list lists fixed URIs", `{"jsonrpc":"2.0","id":6,"method":"resources/list"}`, nil, 200,
			`{"jsonrpc":"2.0","id":6,"result":{"resources":[{"uri":"octo://guide","name":"guide","description":"Operator guide for the weather tools.","mimeType":"text/markdown"}]}}`},
		{"resources/templates/list lists templates", `{"jsonrpc":"2.0","id":7,"method":"resources/templates/list"}`, nil, 200,
			`{"jsonrpc":"2.0","id":7,"result":{"resourceTemplates":[{"uriTemplate":"octo://city/{city}","name":"city-briefing","description":"A briefing for any city.","mimeType":"text/markdown"}]}}`},
		{"resources/read of a fixed URI renders its template", `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"octo://guide"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":8,"result":{"contents":[{"uri":"octo://guide","mimeType":"text/markdown","text":"# Weather tools: operator guide\n\nThis MCP server exposes a small set of weather tools.\n\n- ` + "`forecast`" + ` returns a short forecast for a city.\n- Values are illustrative; wire the tool flow to a real API to make it live.\n- Be kind to rate limits and cache when you can.\n"}]}}`},
		{"resources/read of a template match decodes the value and echoes the URI", `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"octo://city/S%C3%A3o%20Paulo"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":9,"result":{"contents":[{"uri":"octo://city/S%C3%A3o%20Paulo","mimeType":"text/markdown","text":"# São Paulo\n\nA city profile for São Paulo. Ask the forecast tool for today's weather there.\n"}]}}`},
		{"an unknown URI is resource not found", `{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"octo://city/"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"octo://city/"}}}`},
		{"prompts/list lists arguments", `{"jsonrpc":"2.0","id":11,"method":"prompts/list"}`, nil, 200,
			`{"jsonrpc":"2.0","id":11,"result":{"prompts":[{"name":"assist","description":"Prime an assistant to help a user in a given city.","arguments":[{"name":"city","description":"The user's city.","required":true}]}]}}`},
		{"prompts/get renders one user message", `{"jsonrpc":"2.0","id":12,"method":"prompts/get","params":{"name":"assist","arguments":{"city":"Porto"}}}`, nil, 200,
			`{"jsonrpc":"2.0","id":12,"result":{"description":"Prime an assistant to help a user in a given city.","messages":[{"role":"user","content":{"type":"text","text":"You are helping a user in Porto. Offer to fetch the forecast with the\n` + "`forecast`" + ` tool, and keep answers short and friendly.\n"}}]}}`},
		{"prompts/get without a required argument is invalid params", `{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"assist"}}`, nil, 200,
			`{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"Invalid params: missing required argument \"city\""}}`},
		{"an unknown method is method not found", `{"jsonrpc":"2.0","id":14,"method":"server/discover"}`, nil, 200,
			`{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"Method not found: server/discover"}}`},
		{"a notification is an empty 202", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ``},
		{"a null id is an invalid request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must not be null"}}`},
		{"malformed JSON is a parse error", `{bad`, nil, 400,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid character 'b' looking for beginning of object key string at offset 2"}}`},
		{"a batch gets an array of answers", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`, nil, 200,
			`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{}}]`},
		{"an unsupported protocol version header is a 400", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "2099-01-01"}, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: unsupported Mcp-Protocol-Version \"2099-01-01\"; this server speaks 2025-06-18, 2025-03-26, 2024-11-05","data":{"requested":"2099-01-01","supported":["2025-06-18","2025-03-26","2024-11-05"]}}}`},
		{"initialize ignores the protocol version header", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, []string{"MCP-Protocol-Version", "2099-01-01"}, 200,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05",` + caps + `}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, "POST", base+"/mcp", "application/x-www-form-urlencoded", c.body, c.header...)
			if a.status != c.status || a.body != c.want {
				t.Fatalf("got %d\n%s\nwant %d\n%s", a.status, a.body, c.status, c.want)
			}
		})
	}
	t.Run("a GET is 405 with Allow: POST so clients fall back", func(t *testing.T) {
		a := do(t, "GET", base+"/mcp", "", "", "Accept", "text/event-stream")
		if a.status != 405 || a.header.Get("Allow") != "POST" {
			t.Fatalf("got %d Allow=%q", a.status, a.header.Get("Allow"))
		}
	})
}

// readmeTranscript is one curl line of a README section and the answer
// printed under it. A line that asks curl for the status
// (-w ' %{http_code}\n') prints it after the body, and sets status.
type readmeTranscript struct {
	path, body, want string
	status           bool
	header           []string // name, value, … from -H 'Name: value'
}

// docSection is the text of the README's "## title" section or, once a task has moved to
// docs/guides/, of the guide titled "# title" (the whole file under its heading): the tests that
// run the docs' transcripts find them wherever they are.
func docSection(t *testing.T, title string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, section, ok := strings.Cut(string(readme), "\n## "+title+"\n"); ok {
		section, _, _ = strings.Cut(section, "\n## ")
		return section
	}
	guides, err := filepath.Glob(filepath.Join(repoRoot(), "docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range guides {
		guide, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if section, ok := strings.CutPrefix(string(guide), "# "+title+"\n"); ok {
			return section
		}
	}
	t.Fatalf("neither README.md nor docs/guides/ has a section titled %q", title)
	return ""
}

// curlTranscripts reads every `curl -s localhost:8080/PATH -d '…'` line of a
// README section followed by a `# answer` line: at least `least` of them.
func curlTranscripts(t *testing.T, section string, least int) []readmeTranscript {
	t.Helper()
	const prefix, withStatus = "curl -s localhost:8080", `curl -s -w ' %{http_code}\n' localhost:8080`
	lines := strings.Split(section, "\n")
	var out []readmeTranscript
	for i, line := range lines {
		rest, status := strings.CutPrefix(line, withStatus)
		ok := status
		if !ok {
			rest, ok = strings.CutPrefix(line, prefix)
		}
		if !ok {
			continue
		}
		path, body, ok := strings.Cut(rest, " -d '")
		if ok {
			body, ok = strings.CutSuffix(body, "'")
		}
		var header []string
		if ok {
			path, header, ok = curlHeaders(path)
		}
		if !ok || i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("README curl line %q is not one quoted body followed by a `# answer` line", line)
		}
		out = append(out, readmeTranscript{path, body, strings.TrimPrefix(lines[i+1], "# "), status, header})
	}
	if len(out) < least {
		t.Fatalf("found %d curl transcripts in the README section, want at least %d", len(out), least)
	}
	return out
}

// curlHeaders splits "PATH -H 'Name: value' …" into the path and the headers' names and values.
func curlHeaders(text string) (path string, header []string, ok bool) {
	path, rest, _ := strings.Cut(text, " ")
	for rest != "" {
		h, ok := strings.CutPrefix(rest, "-H '")
		if !ok {
			return "", nil, false
		}
		h, rest, ok = strings.Cut(h, "'")
		name, value, okh := strings.Cut(h, ": ")
		if !ok || !okh {
			return "", nil, false
		}
		header = append(header, name, value)
		rest = strings.TrimPrefix(rest, " ")
	}
	return path, header, true
}

// The README's 2026-07-28 requests: no initialize, the revision in each request, on the URL
// the older revisions use.
func TestReadmeNewestRevisionTranscriptsAreWhatTheSampleAnswers(t *testing.T) {
	base, _ := runSample(t, "mcp-router")
	checkCurlTranscripts(t, base, docSection(t, "MCP 2026-07-28 on the same URL"), 3)
}

// routerTranscripts reads the README's "An MCP server in one command"
// section.
func routerTranscripts(t *testing.T) []readmeTranscript {
	t.Helper()
	return curlTranscripts(t, docSection(t, "An MCP server in one command"), 10)
}

// The README prints what the server answers: each curl line is sent as curl
// sends it and its printed answer must come back byte for byte.
func TestReadmeRouterTranscriptsAreWhatTheSampleAnswers(t *testing.T) {
	transcripts := routerTranscripts(t)
	base, _ := runSample(t, "mcp-router")
	for _, tr := range transcripts {
		a := do(t, "POST", base+tr.path, "application/x-www-form-urlencoded", tr.body)
		if a.status != 200 || a.body != tr.want {
			t.Errorf("curl -d '%s'\ngot %d\n%s\nREADME prints\n%s", tr.body, a.status, a.body, tr.want)
		}
	}
}

// `octo new mcp-router` writes the sample itself, so the starter never drifts
// from the docs' "A complete server".
func TestRouterStarterIsTheSample(t *testing.T) {
	sample := filepath.Join(repoRoot(), "samples", "mcp-router")
	starter := filepath.Join(repoRoot(), "templates", "mcp-router")
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if got, want := names(starter), names(sample); !slices.Equal(got, want) {
		t.Fatalf("starter files %v, sample files %v", got, want)
	}
	for _, name := range names(sample) {
		want, _ := os.ReadFile(filepath.Join(sample, name))
		got, _ := os.ReadFile(filepath.Join(starter, name))
		if !bytes.Equal(got, want) {
			t.Errorf("templates/mcp-router/%s differs from samples/mcp-router/%s", name, name)
		}
	}
}

// checkCurlTranscripts sends each curl line of section (at least least of them) to base as
// curl sends it; the answer, and the status where the line prints it, must be what the README
// prints under it.
func checkCurlTranscripts(t *testing.T, base, section string, least int) {
	t.Helper()
	for _, tr := range curlTranscripts(t, section, least) {
		a := do(t, "POST", base+tr.path, "application/x-www-form-urlencoded", tr.body, tr.header...)
		got := a.body
		if tr.status {
			got += " " + strconv.Itoa(a.status)
		} else if a.status != 200 {
			got += " (status " + strconv.Itoa(a.status) + ")"
		}
		if got != tr.want {
			t.Errorf("curl %s -d '%s'\ngot    %s\nREADME %s", tr.path, tr.body, got, tr.want)
		}
	}
}

// readmeStream reads the section's `curl -sN` line that asks for a stream: the body it posts,
// and the lines of the stream printed under it.
func readmeStream(t *testing.T, section string) (body string, want []string) {
	t.Helper()
	_, rest, _ := strings.Cut(section, "curl -sN localhost:8080/mcp -H 'Accept: application/json, text/event-stream' -d '")
	body, rest, ok := strings.Cut(rest, "'\n")
	if !ok {
		t.Fatal("the README section has no curl -sN line with a body")
	}
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		want = append(want, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
	}
	return body, want
}

// readmePipe reads the section's `printf … | bin/octo run …` pipe: the JSON lines it writes,
// the VAR=value words before bin/octo, octo's arguments, and the lines printed under it.
func readmePipe(t *testing.T, section string) (in, env, args, want []string) {
	t.Helper()
	block, _, _ := strings.Cut(section[strings.Index(section, "printf"):], "```")
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			want = append(want, strings.TrimPrefix(line, "# "))
		case strings.Contains(line, "bin/octo run "):
			fields := strings.Fields(line)
			i := slices.Index(fields, "bin/octo")
			env, args = fields[:i], fields[i+1:]
		default:
			for _, m := range regexp.MustCompile(`'(\{.*?\})'`).FindAllStringSubmatch(line, -1) {
				in = append(in, m[1])
			}
		}
	}
	return in, env, args, want
}

// `octo run` says where the MCP server is, path included, and how to add it to a client: the
// line a new user looks for before anything else.
func TestRunSaysWhereTheServerIsAndHowToConnect(t *testing.T) {
	base, p := runSample(t, "mcp-router")
	url := base + "/mcp"
	for _, want := range []string{`msg="MCP server ready"`, "url=" + url, `connect="claude mcp add --transport http weather-tools ` + url + `"`} {
		if !strings.Contains(p.Log(), want) {
			t.Errorf("the log lacks %s:\n%s", want, p.Log())
		}
	}
}

// A port another program holds is told at the setting's line, with the variable that sets it
// and a port free now.
func TestAPortInUseNamesTheSettingAndItsVariable(t *testing.T) {
	holder, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	port := strconv.Itoa(holder.Addr().(*net.TCPAddr).Port)
	cmd := exec.Command(octoBin, "run", "samples/mcp-router")
	cmd.Dir, cmd.Env = repoRoot(), append(os.Environ(), "HTTP_PORT="+port)
	out, err := cmd.CombinedOutput()
	want := "samples/mcp-router/mcp-router.yaml:29:13: connectors[0].settings.port (connector \"api\"): port " + port +
		" is in use by another program: set HTTP_PORT to another port ("
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "    port: ${HTTP_PORT}\n          ^") {
		t.Fatalf("exit %v, want %q:\n%s", err, want, out)
	}
}

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The stdio router sample, run as a client that starts it as a command runs it: the tools answer
// over the pipe, the one that calls the sample's own API (an http connector beside the pipe)
// reaches it, and octo exits once the input ends, its calls answered.
func TestTheStdioRouterSampleAnswersOverThePipeAndEndsWithItsInput(t *testing.T) {
	port := freePort(t)
	env := []string{fmt.Sprintf("HTTP_PORT=%d", port), fmt.Sprintf("API_URL=http://127.0.0.1:%d/api", port)}
	in := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"current","arguments":{"city":"Lisbon"}}}`,
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"weather-stdio","version":"1.0.0"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"clear, 19C\"}"}]}}`,
	}
	stderr := checkPipe(t, env, []string{"run", "--config", "samples/mcp-router-stdio"}, in, want)
	if !strings.Contains(stderr, "nothing left to serve") {
		t.Errorf("octo did not end with its input:\n%s", stderr)
	}
}

// octo test runs mcp cases through the sample's stdio connector: a copy of the sample with a
// broken expectation and a tool that does not answer in time fails exactly those two, saying
// what differs and that the time ran out, and exits 1.
func TestOctoTestFailsABrokenCaseOfTheStdioSamplePrecisely(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"mcp-router-stdio.yaml", "guide.md"} {
		writeFile(t, filepath.Join(dir, f), readSample(t, "mcp-router-stdio/"+f))
	}
	writeFile(t, filepath.Join(dir, "tests", "broken.yaml"), `cases:
  - name: forecast answers for the city asked
    mcp: { tool: forecast, arguments: { city: Paris } }
    expect: { paths: { structuredContent.summary: "Sunny, 24C" } }
  - name: expects a summary it does not get
    mcp: { tool: current, arguments: { city: Oslo } }
    stubs:
      - { urlPattern: '/api/current$', body: { city: Oslo, temperatureC: 7, sky: snow } }
    expect: { text: '{"city":"Oslo","summary":"rain, 7C"}' }
  - name: an API slower than the case
    timeout: 500ms
    mcp: { tool: current, arguments: { city: Oslo } }
    stubs:
      - { urlPattern: '/api/current$', delay: 1m, body: {} }
`)
	code, stdout, stderr := runOcto(t, "test", "--config", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	f := dir + "/tests/broken.yaml"
	for _, want := range []string{
		"ok   " + f + ":2: forecast answers for the city asked",
		"FAIL " + f + ":5: expects a summary it does not get",
		`text: expected "{\"city\":\"Oslo\",\"summary\":\"rain, 7C\"}", got "{\"city\":\"Oslo\",\"summary\":\"snow, 7C\"}"`,
		"FAIL " + f + ":10: an API slower than the case",
		"mcp: tools/call: the flow wrote no answer in time",
		"the case took longer than its timeout, 500ms",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "FAIL: 2 of 3 cases failed") {
		t.Errorf("stderr: %s", stderr)
	}
}

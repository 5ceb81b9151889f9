package e2e

// Follow-ups of the hostile-client suite: ${VAR} in JSON text settings, and
// config, template and workspace files past the size cap.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// schemaConfig is a router whose inputSchema takes variables: DESC inside a
// JSON string, MAX where a value stands.
const schemaConfig = `
env:
  - { name: HTTP_PORT }
  - { name: DESC }
  - { name: MAX }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: lookup
            inputSchema: '{"type": "object", "properties": {"city": {"type": "string", "description": "${DESC}", "maxLength": ${MAX}}}}'
            process: [ { type: set-payload, settings: { value: 'body' } } ]
`

// A value with quotes cannot change a schema: inside a JSON string it is
// part of the string; where a value stands, a number stays a number and
// anything else becomes a string.
func TestAVariableIsAValueInJSONSchemas(t *testing.T) {
	const desc = `", "x": {"type": "number"}, "y": "`
	base, _ := runConfig(t, schemaConfig, "DESC="+desc, "MAX=5")
	t.Run("the schema is listed as written, the value inside its string", func(t *testing.T) {
		a := do(t, "POST", base+"/mcp", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		want := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"lookup","inputSchema":` +
			`{"type":"object","properties":{"city":{"type":"string","description":"\", \"x\": {\"type\": \"number\"}, \"y\": \"","maxLength":5}}}}]}}`
		if a.status != 200 || a.body != want {
			t.Fatalf("got %d\n%s\nwant\n%s", a.status, a.body, want)
		}
	})
	t.Run("a number stays a number the schema checks with", func(t *testing.T) {
		a := do(t, "POST", base+"/mcp", "application/json",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"city":"Lisbon"}}}`)
		if a.status != 200 || !strings.Contains(a.body, `"isError":true`) || !strings.Contains(a.body, "length must be <= 5") {
			t.Fatalf("got %d %s, want an error result saying length must be <= 5", a.status, a.body)
		}
	})
	t.Run("text where a value stands is a string, and the schema says what is wrong", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(schemaConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("HTTP_PORT", "0")
		t.Setenv("DESC", "d")
		t.Setenv("MAX", `5, "pattern": "^x"`)
		code, out, _ := validate(t, dir)
		// At the ${MAX} that stands for the value, in words.
		want := filepath.Join(dir, "octo.yaml") + `:15:121: flows[0].process[0].tools[0].inputSchema.properties.city.maxLength (mcp-router): ` +
			`"maxLength" must be an integer, not a string`
		if code != 1 || !strings.HasPrefix(strings.TrimSpace(out), want) {
			t.Fatalf("exit %d:\n%s\nwant exit 1 and a line starting\n%s", code, out, want)
		}
	})
}

// hugeFile writes a sparse file of 256 MiB: nothing on disk, but reading it
// whole takes 256 MiB of memory.
func hugeFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
}

// refused runs octo validate on path and expects it to fail with the one
// problem want (followed, when it has a column, by the line it points at).
// Its memory is not measured: octo validate ends at once, and the peak the
// kernel reports for it counts this test process too (os/exec starts it with
// vfork), so the serve case below measures instead.
func refused(t *testing.T, path, want string) {
	t.Helper()
	code, out, _ := validate(t, path)
	if first, rest, _ := strings.Cut(out, "\n"); code != 1 || first != want || strings.Contains(rest, path) {
		t.Fatalf("exit %d:\n%s\nwant exit 1 and:\n%s", code, out, want)
	}
}

// A config file, a template resource and a workspace server file are read
// whole, so each is capped at 16 MiB: a larger one is refused unread, naming
// the file.
func TestFilesPastTheSizeCapAreRefused(t *testing.T) {
	t.Run("a config file", func(t *testing.T) {
		huge := filepath.Join(t.TempDir(), "huge.yaml")
		hugeFile(t, huge)
		refused(t, huge, huge+": config file is larger than 16 MiB")
	})
	t.Run("a template resource", func(t *testing.T) {
		dir := t.TempDir()
		hugeFile(t, filepath.Join(dir, "huge.md"))
		config := "resources:\n  templates:\n    - { resource: huge.md, as: huge }\n"
		if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, filepath.Join(dir, "octo.yaml")+`:3:19: resources.templates[0].resource (template "huge"): `+
			`template file "`+filepath.Join(dir, "huge.md")+`" is larger than 16 MiB`)
	})
	t.Run("a workspace server file", func(t *testing.T) {
		dir := t.TempDir()
		servers := filepath.Join(dir, "servers")
		if err := os.MkdirAll(servers, 0o755); err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(freePort(t))
		good := "name: Good\nport: " + port + "\nmcp:\n  tools: [ { name: good, result: fine } ]\n"
		if err := os.WriteFile(filepath.Join(servers, "Good.yaml"), []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		hugeFile(t, filepath.Join(servers, "Huge.yaml"))
		p := startOcto(t, nil, "serve", dir)
		waitLog(t, p, filepath.Join(servers, "Huge.yaml")+": config file is larger than 16 MiB")
		if got := listTools(t, "http://127.0.0.1:"+port+"/mcp"); len(got) != 1 || got[0] != "good" {
			t.Fatalf("tools %v", got)
		}
		assertPeakRSSUnder(t, p, 64) // reading the file whole took 256 MB
	})
}

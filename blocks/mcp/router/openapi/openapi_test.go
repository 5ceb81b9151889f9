package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// octo runs the command line in this process, as the binary would, from the package folder.
func octo(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		LookupEnv: func(string) (string, bool) { return "", false }}, args)
	return out.String(), errb.String(), code
}

// imported imports spec into a new folder and returns it and the config's text.
func imported(t *testing.T, spec string, flags ...string) (dir, text string) {
	t.Helper()
	dir = t.TempDir()
	out, errs, code := octo(t, append([]string{"import", "openapi", spec, "--out", dir, "--port", "8080"}, flags...)...)
	if code != 0 {
		t.Fatalf("import: exit %d: %s%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("import wrote %v", files)
	}
	b, _ := os.ReadFile(files[0])
	return dir, string(b)
}

func TestAnImportValidatesAndPassesItsOwnTests(t *testing.T) {
	for _, spec := range []string{"testdata/notes.yaml", "testdata/petstore-swagger2.json"} {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			dir, _ := imported(t, spec)
			if out, errs, code := octo(t, "validate", dir); code != 0 {
				t.Fatalf("validate: exit %d: %s%s", code, out, errs)
			}
			out, errs, code := octo(t, "test", dir)
			if code != 0 {
				t.Fatalf("test: exit %d: %s%s", code, out, errs)
			}
			if !strings.Contains(out, "cases passed") {
				t.Fatalf("test: %s", out)
			}
		})
	}
}

func TestTheImportSaysWhatItMadeAndWhatItLeftOut(t *testing.T) {
	dir := t.TempDir()
	out, _, code := octo(t, "import", "openapi", "testdata/notes.yaml", "--out", dir, "--port", "8080")
	if code != 0 {
		t.Fatal(out)
	}
	for _, want := range []string{
		`Imported "notes.yaml" into ` + dir + `: 6 tools.`,
		"Left out 1 operation:\n  attach (POST /notes/{noteId}/attachments): its request body is multipart/form-data, not JSON",
		"The API: https://eu.notes.example.com/v2 (set API_BASE_URL to call another).",
		"Credentials: set BEARERAUTH_TOKEN, APIKEY in the environment.",
		"Test it (the tool list and 3 cases from the description's examples, in tests/):",
		"http://localhost:8080/mcp",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// Again without --force: nothing is replaced.
	if _, errs, code := octo(t, "import", "openapi", "testdata/notes.yaml", "--out", dir); code != 1 || !strings.Contains(errs, "notes-api.yaml exists: pass --force") {
		t.Fatalf("a second import: exit %d, %s", code, errs)
	}
	if _, _, code := octo(t, "import", "openapi", "testdata/notes.yaml", "--out", dir, "--force"); code != 0 {
		t.Fatal("--force did not replace the import")
	}
}

// backend is the API the imported tools call: it records each request and answers JSON.
type backend struct {
	mu   sync.Mutex
	seen []string // "METHOD escaped-path?query auth=… src=… body"
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.seen = append(b.seen, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery+" auth="+r.Header.Get("Authorization")+
		" src="+r.Header.Get("X-Request-Source")+" "+string(body))
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/v2/notes" && r.Method == http.MethodGet:
		io.WriteString(w, `[{"id":"n1","text":"a"}]`)
	default:
		io.WriteString(w, `{"id":"n1","text":"a","tags":["x"],"owner":null}`)
	}
}

func (b *backend) last(t *testing.T) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.seen) == 0 {
		t.Fatal("the API got no request")
	}
	return b.seen[len(b.seen)-1]
}

// serveImport serves the imported config with its defaults pointed at api, and connects the
// official Go SDK client to it.
func serveImport(t *testing.T, text, api string) *sdk.ClientSession {
	t.Helper()
	set := func(name, value string) {
		re := regexp.MustCompile(`(?m)^(  - name: ` + name + `\n    default: )[^\n]*`)
		if !re.MatchString(text) {
			t.Fatalf("the config declares no %s", name)
		}
		text = re.ReplaceAllString(text, "${1}"+value)
	}
	set("HTTP_PORT", `"0"`)
	set("API_BASE_URL", api+"/v2")
	set("BEARERAUTH_TOKEN", "tok-1")
	set("APIKEY", `"k&1"`)
	_, base := runtimetest.Serve(t, text, "web", nil)
	return runtimetest.ConnectMCP(t, base+"/mcp", nil)
}

func TestTheImportedToolsCallTheAPI(t *testing.T) {
	api := &backend{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	_, text := imported(t, "testdata/notes.yaml")
	cs := serveImport(t, text, srv.URL)

	if got := strings.Join(runtimetest.ToolNames(t, cs), " "); got != "listNotes createNote getNote deleteNote get_notes_noteId_history setTags" {
		t.Fatalf("tools: %s", got)
	}
	cases := []struct {
		tool string
		args string
		want string
	}{
		{"listNotes", `{"limit":2,"tags":["a b","c"],"X-Request-Source":"cli"}`, `GET /v2/notes?limit=2&tags=a+b%2Cc auth=Bearer tok-1 src=cli `},
		{"listNotes", `{}`, `GET /v2/notes? auth=Bearer tok-1 src= `},
		{"createNote", `{"text":"buy milk"}`, `POST /v2/notes? auth=Bearer tok-1 src= {"text":"buy milk"}`},
		{"getNote", `{"noteId":"n 1/2"}`, `GET /v2/notes/n%201%2F2? auth=Bearer tok-1 src= `},
		{"deleteNote", `{"noteId":"n1"}`, `DELETE /v2/notes/n1?api_key=k%261 auth= src= `},
		{"setTags", `{"noteId":"n1","body":["x","y"]}`, `PUT /v2/notes/n1/tags? auth=Bearer tok-1 src= ["x","y"]`},
	}
	for _, c := range cases {
		var args map[string]any
		json.Unmarshal([]byte(c.args), &args)
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if res.IsError {
			t.Fatalf("%s %s: %s", c.tool, c.args, res.Content[0].(*sdk.TextContent).Text)
		}
		if got := api.last(t); got != c.want {
			t.Errorf("%s %s: the API got\n  %s\nwant\n  %s", c.tool, c.args, got, c.want)
		}
	}
	// An object answer is the structured content the output schema declares.
	res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "getNote", Arguments: map[string]any{"noteId": "n1"}})
	if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"owner":null`) {
		t.Errorf("structured content %s", sc)
	}
	// Arguments the schema refuses never reach the API.
	before := len(api.seen)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "listNotes", Arguments: map[string]any{"limit": 1000}})
	if err != nil || !res.IsError || len(api.seen) != before {
		t.Fatalf("limit 1000: %v %+v, %d requests", err, res, len(api.seen)-before)
	}
}

func TestTheSchemasFollowTheDescription(t *testing.T) {
	_, text := imported(t, "testdata/notes.yaml")
	for _, want := range []string{
		// readOnly properties are not arguments; the recursive Note is written out once.
		"body: pick(body, \"tags\", \"text\")",
		// 3.1's type lists, and the path item's parameter with its example.
		`"owner": {"type": ["string", "null"]}`,
		// Note contains itself: its outputSchema names it under $defs.
		`"next": {"$ref": "#/$defs/Note"}`,
		// the header parameter, by its name.
		`X-Request-Source: '{{ body["X-Request-Source"] }}'`,
		// an invalid operationId gives a name of method and path; deprecated is said.
		"- name: get_notes_noteId_history\n            description: |-\n              Deprecated.",
		// DELETE is destructive and idempotent, GET read-only.
		"destructiveHint: true\n              idempotentHint: true",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the config lacks %q", want)
		}
	}
	if strings.Contains(text, `"readOnly"`) || regexp.MustCompile(`"id": \{\s+"type": "string"\s+\}\s+\},\s+"required": \[\s+"text"`).MatchString(text) {
		t.Error("a readOnly property is an argument")
	}
}

func TestTagsAndOperationsChooseTools(t *testing.T) {
	_, text := imported(t, "testdata/notes.yaml", "--tags", "admin", "--operations", "getNote")
	if n := strings.Count(text, "\n          - name: "); n != 2 || !strings.Contains(text, "name: deleteNote") || !strings.Contains(text, "name: getNote") {
		t.Fatalf("%d tools:\n%s", n, text)
	}
	_, errs, code := octo(t, "import", "openapi", "testdata/notes.yaml", "--out", t.TempDir(), "--tags", "nope")
	if code != 1 || !strings.Contains(errs, "no operation became a tool (nothing matched --tags nope)") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestBadInputIsNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import"}, 2, "say what to import"},
		{[]string{"import", "graphql", "x"}, 2, `octo import takes openapi, not "graphql"`},
		{[]string{"import", "openapi", "x.yaml"}, 2, "say where to write: --out DIR for an MCP router config, --mock WORKSPACE for an HTTP mock of the API, or both"},
		{[]string{"import", "openapi", filepath.Join(dir, "none.yaml"), "--out", dir}, 1, "no such file or directory"},
		{[]string{"import", "openapi", dir, "--out", dir}, 1, dir + " is a folder: name the description's file"},
		{[]string{"import", "openapi", "http://127.0.0.1:1/openapi.json", "--out", dir}, 1, "fetching the description: Get"},
		{[]string{"import", "openapi", write("a.yaml", "name: not an api\n"), "--out", dir}, 1, "has no openapi or swagger field"},
		{[]string{"import", "openapi", write("b.json", `{"openapi": "3.0.0", `), "--out", dir}, 1, "not JSON or YAML"},
		{[]string{"import", "openapi", write("c.yaml", "openapi: 4.0.0\n"), "--out", dir}, 1, "is OpenAPI 4.0.0: octo imports Swagger 2.0 and OpenAPI 3.0 and 3.1"},
		{[]string{"import", "openapi", write("d.yaml", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"), "--out", dir}, 1, "describes no paths"},
	}
	for _, c := range cases {
		_, errs, code := octo(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("octo %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.want)
		}
	}
}

// A description read from a URL: a relative server URL is the API's address beside it.
func TestADescriptionByURLResolvesItsServer(t *testing.T) {
	spec := `{"openapi":"3.0.3","info":{"title":"Beside","version":"1"},"servers":[{"url":"/api/v1"}],
"paths":{"/ping":{"get":{"operationId":"ping","responses":{"200":{"description":"ok"}}}}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/specs/beside.json" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, spec)
	}))
	defer srv.Close()
	out, errs, code := octo(t, "import", "openapi", srv.URL+"/specs/beside.json", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "The API: "+srv.URL+"/api/v1 (set API_BASE_URL") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if _, errs, code := octo(t, "import", "openapi", srv.URL+"/specs/none.json", "--out", t.TempDir()); code != 1 || !strings.Contains(errs, "answered 404 Not Found") {
		t.Fatalf("a missing description: exit %d, %s", code, errs)
	}
}

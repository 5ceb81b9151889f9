package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

// servedMock serves the workspace's one saved server and returns its base URL.
func servedMock(t *testing.T, ws string) string {
	t.Helper()
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- workspace.Run(ctx, ws, workspace.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Ready: func(_, url string) { ready <- url }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case url := <-ready:
		return strings.TrimSuffix(url, "/")
	case err := <-done:
		t.Fatalf("the mock did not serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the mock did not serve")
	}
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The import's router, pointed at the import's mock, answers every tool from the mock: each
// route at the description's path under the API's base path, each answer fitting the tool's
// outputSchema (the router refuses one that does not).
func TestTheRouterRunsAgainstTheImportedMock(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	port := freePort(t)
	out, errs, code := octo(t, "import", "openapi", "testdata/notes.yaml", "--out", dir, "--mock", ws, "--mock-port", strconv.Itoa(port))
	if code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	for _, want := range []string{
		"Imported \"notes.yaml\" as an HTTP mock into " + filepath.Join(ws, "servers", "Notes API.yaml") + ": 7 routes.",
		"Serve it:\n  octo serve " + ws + " 'Notes API'",
		"Try the router against the mock:\n  API_BASE_URL=http://127.0.0.1:" + strconv.Itoa(port) + "/v2 octo run " + dir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the import printed\n%s\nwithout\n%s", out, want)
		}
	}
	base := servedMock(t, ws)
	text, err := os.ReadFile(filepath.Join(dir, "notes-api.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cs := serveImport(t, string(text), base)
	for _, c := range []struct{ tool, args string }{
		{"listNotes", `{"limit": 2}`},
		{"createNote", `{"text": "buy milk"}`},
		{"getNote", `{"noteId": "n1"}`},
		{"deleteNote", `{"noteId": "n1"}`},
		{"setTags", `{"noteId": "n1", "body": ["x"]}`},
	} {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.args), &args)
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			shown, _ := json.Marshal(res)
			t.Errorf("%s: %v %s", c.tool, err, shown)
		}
	}
	// A route answers the description's example as written.
	resp, err := http.Get(base + "/v2/notes/n1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !json.Valid(b) {
		t.Fatalf("GET /v2/notes/n1: %d %s", resp.StatusCode, b)
	}
}

// A mock alone needs no --out, refuses to replace its file without --force, and says so.
func TestAMockAloneAndAgain(t *testing.T) {
	ws := t.TempDir()
	if out, errs, code := octo(t, "import", "openapi", "testdata/petstore-swagger2.json", "--mock", ws); code != 0 || !strings.Contains(out, ": 20 routes.") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if _, errs, code := octo(t, "import", "openapi", "testdata/petstore-swagger2.json", "--mock", ws); code == 0 || !strings.Contains(errs, "Swagger Petstore.yaml exists: pass --force to replace it") {
		t.Fatalf("again: %d %s", code, errs)
	}
	if out, errs, code := octo(t, "validate", ws); code != 0 {
		t.Fatalf("validate: %s %s", out, errs)
	}
	if _, errs, code := octo(t, "import", "openapi", "testdata/petstore-swagger2.json"); code != 2 || !strings.Contains(errs, "--mock WORKSPACE") {
		t.Fatalf("neither: %d %s", code, errs)
	}
}

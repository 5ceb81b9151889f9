// Package templates holds the starter configs embedded in the octo binary:
// `octo new` writes them out (and the app's "new server" will). It owns the
// starter files and their rendering; what they mean belongs to the blocks
// and adapters that load them.
package templates

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"text/template"
)

//go:embed http-mock mcp-api mcp-mock mcp-router
var files embed.FS

// Starter is one kind of thing `octo new` can make.
type Starter struct {
	Name    string
	Summary string
	Usage   string
}

// Starters lists what `octo new` offers, in the order shown.
var Starters = []Starter{
	{"http-mock", "a saved HTTP mock server (routes with parameters, a failing case) in a workspace folder",
		`octo new http-mock <workspace> "<Server name>"`},
	{"mcp-api", "a flow config serving MCP tools that call your HTTP API (list, get and create, with tests)",
		"octo new mcp-api <folder>"},
	{"mcp-mock", "a saved MCP mock server (tool, resource, prompt) in a workspace folder",
		`octo new mcp-mock <workspace> "<Server name>"`},
	{"mcp-router", "a flow config serving a stateless MCP server whose tools are flow branches",
		"octo new mcp-router <folder>"},
}

// Files returns the files of a starter, rooted at its folder.
func Files(starter string) (fs.FS, error) {
	if !known(starter) {
		return nil, fmt.Errorf("unknown starter %q", starter)
	}
	return fs.Sub(files, starter)
}

func known(name string) bool { return Lookup(name).Name != "" }

// MockServer is what the mcp-mock server starter is filled with.
type MockServer struct {
	Name string
	Port int
}

// RenderMockServer returns servers/<name>.yaml for a new mock server.
func RenderMockServer(v MockServer) ([]byte, error) { return renderMock("mcp-mock/server.yaml", v) }

// RenderHTTPMockServer returns servers/<name>.yaml for a new HTTP mock server.
func RenderHTTPMockServer(v MockServer) ([]byte, error) {
	return renderMock("http-mock/server.yaml", v)
}

// RenderMockTests returns tests/<name>.yaml, the octo test cases of a new mock server.
func RenderMockTests(v MockServer) ([]byte, error) {
	return renderMock("mcp-mock/tests/server.yaml", v)
}

// renderMock fills the mock starter's file name with v.
func renderMock(name string, v MockServer) ([]byte, error) {
	text, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Delims("[[", "]]").Funcs(template.FuncMap{"quote": quote}).Parse(string(text))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// quote writes s as a YAML double-quoted scalar (JSON string syntax is one).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Lookup returns the starter named name; the zero Starter when there is none.
func Lookup(name string) Starter {
	for _, s := range Starters {
		if s.Name == name {
			return s
		}
	}
	return Starter{}
}

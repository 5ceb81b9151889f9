package agenttools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/reference"
)

// saveArgs are save_server's arguments: a saved server file's keys.
type saveArgs struct {
	Name string          `json:"name"`
	Kind string          `json:"kind"`
	Port *int            `json:"port"`
	MCP  json.RawMessage `json:"mcp"`
	HTTP json.RawMessage `json:"http"`
}

// section is the settings of the server's kind: http for an HTTP API, else mcp.
func (a *saveArgs) section() (key string, settings json.RawMessage) {
	if a.Kind == workspace.KindHTTP {
		return "http", a.HTTP
	}
	return "mcp", a.MCP
}

// otherSection names the section of the kind the server is not, when it was given anyway.
func otherSection(a *saveArgs) (string, bool) {
	if a.Kind == workspace.KindHTTP {
		return "mcp", a.MCP != nil
	}
	return "http", a.HTTP != nil
}

// saving is a save_server call with its file drafted.
type saving struct {
	saveArgs
	draft *workspace.Draft
}

func (t *Tools) saveServer(c Call) (op, error) {
	var s saving
	if err := decode(c.Args, &s.saveArgs); err != nil {
		return op{}, err
	}
	if err := workspace.CheckName(s.Name); err != nil {
		return op{}, argError("name", "%v", err)
	}
	key, section := s.section()
	if other, given := otherSection(&s.saveArgs); given {
		return op{}, argError(other, "a server of kind %s takes its settings under %s, not %s", cmp.Or(s.Kind, "mcp"), key, other)
	}
	d, err := workspace.NewDraft(s.Name, s.Kind, section)
	if err != nil {
		return op{}, argError(key, "%v", err)
	}
	s.draft = d
	return op{summary: t.saveSummary(&s), detail: t.saveDetail(&s), again: func() string { return t.saveSummary(&s) },
		check: func(ctx context.Context) *mcp.CallToolResult { return t.checkSave(ctx, &s) },
		run:   func(ctx context.Context) *mcp.CallToolResult { return t.save(ctx, &s) }}, nil
}

// draft is what a save writes: the file, its port and text, and the server it replaces.
type draft struct {
	file     string
	port     int
	text     []byte
	existing *ServerState
}

// drafted is what a save writes; res says why it would not be saved (checked as serving it
// would check it), nil when it would.
func (t *Tools) drafted(w *workspace.Writer, s *saving) (d draft, res *mcp.CallToolResult) {
	dir := w.Dir()
	file, existing, err := t.saveTarget(s.Name)
	if err != nil {
		return draft{}, errResult(err)
	}
	d = draft{file: file, existing: existing, port: savePort(w, file, existing, s.Port)}
	if d.text, err = s.draft.Text(d.port); err != nil {
		return draft{}, errResult(err)
	}
	if _, ds := workspace.CheckServer(dir, file, d.text, ""); len(ds) > 0 {
		return draft{}, t.notSaved(file, d.text, ds)
	}
	return d, nil
}

// saveSummary tells the user what the save makes: `save_server "Weather mock" (new, 3 tools)`.
func (t *Tools) saveSummary(s *saving) string {
	var parts []string
	if st, err := t.find(s.Name); err != nil {
		parts = append(parts, "new")
	} else if st.Running {
		parts = append(parts, "replaces "+printable.Escape(t.rel(st.File))+", running: applies live")
	} else {
		parts = append(parts, "replaces "+printable.Escape(t.rel(st.File)))
	}
	var counts struct{ Tools, Resources, Prompts, Routes []json.RawMessage }
	_, section := s.section()
	_ = json.Unmarshal(section, &counts) // only counted; the file's checks judge them
	for _, c := range []struct {
		n    int
		what string
	}{{len(counts.Tools), "tool"}, {len(counts.Resources), "resource"}, {len(counts.Prompts), "prompt"}, {len(counts.Routes), "route"}} {
		if c.n > 0 {
			parts = append(parts, plural(c.n, c.what))
		}
	}
	return fmt.Sprintf("%s %q (%s)", SaveServer, s.Name, strings.Join(parts, ", "))
}

// saveDetail tells the user, besides the summary, what the saved server answers (each tool's
// result, resource's text and prompt's messages, shortened) and which of the workspace's
// variables it reads, the secret ones said so: what an approval of the save lets out.
func (t *Tools) saveDetail(s *saving) []string {
	var m struct {
		Tools []struct {
			Name, Result string
		}
		Resources []struct {
			URI, URITemplate, Text string
		}
		Prompts []struct {
			Name     string
			Messages []struct{ Text string }
		}
		Routes []struct {
			Method, Path, Body string
		}
	}
	_, section := s.section()
	_ = json.Unmarshal(section, &m) // the file's checks judge its shape; this only shows it
	var lines []string
	answers := func(what, name, text string) {
		lines = append(lines, fmt.Sprintf("%s %s answers %s", what, printable.Quote(name), printable.Quote(text)))
	}
	for _, tool := range m.Tools {
		answers("tool", tool.Name, tool.Result)
	}
	for _, r := range m.Resources {
		answers("resource", cmp.Or(r.URI, r.URITemplate), r.Text)
	}
	for _, p := range m.Prompts {
		texts := make([]string, len(p.Messages))
		for i, msg := range p.Messages {
			texts[i] = msg.Text
		}
		answers("prompt", p.Name, strings.Join(texts, " / "))
	}
	for _, r := range m.Routes {
		answers("route", cmp.Or(strings.ToUpper(r.Method), "GET")+" "+r.Path, r.Body)
	}
	if reads := t.variablesRead(section); len(reads) > 0 {
		lines = append(lines, "it reads the variables "+strings.Join(reads, ", "))
	}
	return lines
}

// variablesRead names the workspace's variables a server's settings use as {{name}} tags,
// sorted, the secret ones marked.
func (t *Tools) variablesRead(mcpSettings []byte) []string {
	settings, ds := workspace.ReadSettings(t.host.Workspace())
	if len(ds) > 0 {
		return nil
	}
	known := map[string]bool{}
	for k := range settings.Variables {
		known[k] = true
	}
	for _, vars := range settings.Environments {
		for k := range vars {
			known[k] = true
		}
	}
	var out []string
	for _, m := range tagName.FindAllSubmatch(mcpSettings, -1) {
		name := string(m[1])
		if !known[name] || slices.ContainsFunc(out, func(s string) bool { return strings.TrimSuffix(s, " (secret)") == name }) {
			continue
		}
		if slices.Contains(settings.Secrets, name) {
			name += " (secret)"
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// tagName finds {{name}} tags.
var tagName = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// checkSave says why the save would not be saved, checked with no other save running (the
// port it would take is free then); nil when it would be.
func (t *Tools) checkSave(ctx context.Context, s *saving) *mcp.CallToolResult {
	w, unlock, err := t.lockWrites(ctx)
	if err != nil {
		return errResult(err)
	}
	defer unlock()
	_, res := t.drafted(w, s)
	return res
}

// save writes the server's file, checked again once no other save runs.
func (t *Tools) save(ctx context.Context, s *saving) *mcp.CallToolResult {
	w, unlock, err := t.lockWrites(ctx)
	if err != nil {
		return errResult(err)
	}
	defer unlock()
	d, res := t.drafted(w, s)
	if res != nil {
		return res
	}
	if err := writeSchema(w.Dir()); err != nil {
		return errResult(err)
	}
	if err := w.WriteServer(d.file, d.text); err != nil {
		return errResult(fmt.Errorf("could not write %s: %w", t.rel(d.file), err))
	}
	lines := []string{fmt.Sprintf("Saved %q to %s (port %d).", s.Name, t.rel(d.file), d.port)}
	if d.existing != nil && d.existing.Running {
		lines = append(lines, "It runs, and takes the change at once: Octo applies an edit within a second of the file being written, "+
			"and clients with an open stream are told when its tools, resources or prompts changed. "+
			"A new port or path restarts it there: list_servers then shows its address.")
	} else {
		lines = append(lines, "It is not running: start it with start_server.")
	}
	return textResult(lines...)
}

// saveTarget is the file a save of name writes: the saved server's of that name, else a new
// servers/<name>.yaml, unless that file holds another server.
func (t *Tools) saveTarget(name string) (file string, existing *ServerState, err error) {
	if st, err := t.find(name); err == nil {
		return st.File, &st, nil
	}
	file = workspace.ServerFile(t.host.Workspace(), name)
	for _, st := range t.host.States() {
		if filepath.Clean(st.File) == filepath.Clean(file) {
			return "", nil, fmt.Errorf("%s holds the server %q; save under that name to replace it, or pick another name", t.rel(file), st.Name)
		}
	}
	if _, err := os.Lstat(file); err == nil {
		return "", nil, fmt.Errorf("%s exists but is not a saved server octo can read; fix or remove it, or pick another name", t.rel(file))
	}
	return file, nil, nil
}

// savePort is the port written in the file: the one asked for, else the one the server has,
// else the one `octo new mcp-mock` would pick.
func savePort(w *workspace.Writer, file string, existing *ServerState, asked *int) int {
	if asked != nil {
		return *asked
	}
	if existing != nil {
		servers, _ := workspace.ReadAll(w.Dir())
		for _, s := range servers {
			if filepath.Clean(s.File) == filepath.Clean(file) {
				return s.Port
			}
		}
	}
	return w.NextPort()
}

// writeSchema writes the saved server schema the modeline names, when the workspace lacks it,
// as `octo new mcp-mock` does.
func writeSchema(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, reference.SchemaFile(workspace.ServerSchema))); err == nil {
		return nil
	}
	return reference.WriteSchemas(dir, workspace.ServerSchema)
}

// notSaved lists every problem of the file that would have been written, and the file with
// line numbers, which the problems' line:column point into.
func (t *Tools) notSaved(file string, text []byte, ds config.Diags) *mcp.CallToolResult {
	ds.Sort()
	var b strings.Builder
	fmt.Fprintf(&b, "Nothing was saved: %s would have %s.\n", t.rel(file), plural(len(ds), "problem"))
	for _, p := range t.texts(ds) {
		b.WriteString(p + "\n")
	}
	fmt.Fprintf(&b, "\n%s as it would have been written:\n", t.rel(file))
	for i, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		fmt.Fprintf(&b, "%4d | %s\n", i+1, line)
	}
	return mcp.ToolError(b.String())
}

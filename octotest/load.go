package octotest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// loaded is a decoded case, ready to run: where it was written, and what its checks compiled.
type loaded struct {
	Case
	file  string
	line  int
	index int // among the cases of its file
	pos   *config.Positions
	// answerLines are the lines of client.answers, for the failures that name one.
	answerLines []int
	// stubs' patterns, compiled; nil for a stub matched exactly.
	patterns []*regexp.Regexp
}

// where is the case's file:line, for the runner's report.
func (c *loaded) where() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// TestsDir returns the folder holding the test files of the config at path (a folder, or a
// file whose folder holds tests/).
func TestsDir(path string) string {
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		return filepath.Join(filepath.Dir(path), Dir)
	}
	return filepath.Join(path, Dir)
}

// load reads every test file in dir, reporting every problem at once as config errors are.
func load(dir string) ([]*loaded, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	more, _ := filepath.Glob(filepath.Join(dir, "*.yml"))
	files = append(files, more...)
	slices.Sort(files)
	var (
		out   []*loaded
		diags config.Diags
	)
	for _, f := range files {
		cs, ds := loadFile(f)
		out, diags = append(out, cs...), append(diags, ds...)
	}
	if len(diags) > 0 {
		return nil, diags
	}
	return out, nil
}

// loadFile decodes one test file and checks what its tags cannot say.
func loadFile(file string) ([]*loaded, config.Diags) {
	data, err := config.ReadFile(file)
	if err != nil {
		return nil, config.Diags{{File: file, Msg: err.Error()}}
	}
	return parseFile(file, data)
}

// parseFile decodes data, the text of test file file.
func parseFile(file string, data []byte) ([]*loaded, config.Diags) {
	roots, ds := config.Parse(file, data)
	if len(ds) > 0 {
		return nil, ds
	}
	if len(roots) != 1 {
		return nil, config.Diags{{File: file, Msg: "expected one YAML document with cases"}}
	}
	var f File
	pos := config.NewPositions(config.NodePosition(roots[0], config.Where{File: file}))
	dec := config.Decoder{Positions: pos}
	ds = dec.Decode(roots[0], &f, config.Where{File: file})
	decoded := len(ds) == 0
	out := make([]*loaded, len(f.Cases))
	names := map[string]bool{}
	sessions := map[string]string{} // the first case of each mcp.session
	for i := range f.Cases {
		c := &loaded{Case: f.Cases[i], file: file, index: i, pos: pos}
		c.line = pos.Of(&f.Cases[i]).Line
		out[i] = c
		// A case the decoder already found wrong is not checked further: what it left out
		// would be reported again in other words.
		prefix := fmt.Sprintf("cases[%d]", i)
		if !slices.ContainsFunc(ds, func(d config.Diag) bool { return d.Path == prefix || strings.HasPrefix(d.Path, prefix+".") }) {
			ds = append(ds, c.check(&f.Cases[i], names)...)
			ds = append(ds, c.checkSession(&f.Cases[i], sessions)...)
		}
	}
	if !decoded || len(ds) > 0 {
		ds.Sort()
		return nil, ds
	}
	return out, nil
}

// check reports what a case says that cannot work, at the key that says it. orig is the case as
// decoded (its fields' addresses are what the positions table knows).
func (c *loaded) check(orig *Case, names map[string]bool) config.Diags {
	var ds config.Diags
	bad := func(field any, format string, args ...any) {
		d := c.pos.Diag(field, format, args...)
		d.Kind, d.Name = "case", orig.Name
		ds = append(ds, d)
	}
	if names[orig.Name] {
		bad(&orig.Name, "another case of this file has this name")
	}
	names[orig.Name] = true
	switch {
	case orig.Request == nil && orig.MCP == nil:
		bad(orig, "a case needs a request or an mcp request")
	case orig.Request != nil && orig.MCP != nil:
		bad(&orig.MCP, "set request or mcp, not both")
	case orig.Request != nil:
		r := orig.Request
		if r.Flow == "" && r.Path == "" {
			bad(r, "name the flow the request is for, or its path")
		}
		if r.Body != nil && r.Text != nil {
			bad(&r.Text, "set body or text, not both")
		}
		if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
			bad(&r.Path, "path %q must start with /", r.Path)
		}
	default:
		checkMCP(orig.MCP, bad)
	}
	for i := range orig.Stubs {
		s := &orig.Stubs[i]
		var re *regexp.Regexp
		switch {
		case (s.URL == "") == (s.URLPattern == ""):
			bad(s, "a stub needs url or urlPattern (one of them)")
		case s.URLPattern != "":
			var err error
			if re, err = regexp.Compile(s.URLPattern); err != nil {
				bad(&s.URLPattern, "urlPattern: %v", err)
			}
		}
		if s.Body != nil && s.Text != nil {
			bad(&s.Text, "set body or text, not both")
		}
		for _, v := range []*yaml.Node{s.Body, expectBody(s.Expect)} {
			if v != nil {
				if _, err := valueOf(v); err != nil {
					bad(s, "%v", err)
				}
			}
		}
		c.patterns = append(c.patterns, re)
	}
	ds = append(ds, c.checkClient(orig, bad)...)
	if (len(orig.Expect.Listed) > 0 || len(orig.Expect.Unlisted) > 0) && (orig.MCP == nil || orig.MCP.List == "") {
		bad(&orig.Expect, "listed and unlisted are for mcp list cases (mcp: { list: tools }, say)")
	}
	for name, n := range orig.Expect.Listed {
		if n == nil {
			continue
		}
		v, err := valueOf(n)
		if _, isObject := v.(map[string]any); err == nil && !isObject && v != nil {
			err = fmt.Errorf("expected a part of the item, as an object, or {} for being there at all")
		}
		if err != nil {
			d := c.pos.Key(orig.Expect.Listed, name).KeyDiag("listed." + name + ": " + err.Error())
			d.Kind, d.Name = "case", orig.Name
			ds = append(ds, d)
		}
	}
	for i, p := range orig.Expect.Ignore {
		if _, err := splitPath(p); err != nil {
			bad(&orig.Expect.Ignore[i], "%v", err)
		}
	}
	for p := range orig.Expect.Paths {
		if _, err := splitPath(p); err != nil {
			d := c.pos.Key(orig.Expect.Paths, p).KeyDiag(err.Error())
			d.Kind, d.Name = "case", orig.Name
			ds = append(ds, d)
		}
	}
	if orig.Request != nil && (orig.Expect.IsError != nil || orig.Expect.Error != nil) {
		bad(&orig.Expect, "isError and error are for mcp cases")
	}
	for _, v := range []*yaml.Node{orig.Expect.Body, orig.Expect.BodyContains, orig.Expect.Vars} {
		if v != nil {
			if _, err := valueOf(v); err != nil {
				bad(orig, "%v", err)
			}
		}
	}
	return ds
}

// checkSession reports what a case that joins a session opened by an earlier one cannot set:
// what opened it is the first case's.
func (c *loaded) checkSession(orig *Case, sessions map[string]string) config.Diags {
	if orig.MCP == nil || orig.MCP.Session == "" {
		return nil
	}
	first, joins := sessions[orig.MCP.Session]
	if !joins {
		sessions[orig.MCP.Session] = orig.Name
		return nil
	}
	var ds config.Diags
	bad := func(field any, key string) {
		d := c.pos.Diag(field, "%s: this case joins session %q, which the case %q opened: set it there", key, orig.MCP.Session, first)
		d.Kind, d.Name = "case", orig.Name
		ds = append(ds, d)
	}
	if orig.Client != nil && orig.Client.Protocol != "" {
		bad(&orig.Client.Protocol, "client.protocol")
	}
	if orig.Client != nil && orig.Client.Capabilities != nil {
		bad(&orig.Client.Capabilities, "client.capabilities")
	}
	if len(orig.Env) > 0 {
		bad(&orig.Env, "env")
	}
	if len(orig.MCP.Headers) > 0 {
		bad(&orig.MCP.Headers, "mcp.headers")
	}
	return ds
}

// checkMCP reports an MCP request that says no one thing to do, or several.
func checkMCP(m *MCPRequest, bad func(field any, format string, args ...any)) {
	n := 0
	for _, set := range []bool{m.Tool != "", m.List != "", m.Read != "", m.Prompt != "", m.Method != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		bad(m, "an mcp request needs exactly one of tool, list, read, prompt or method")
	}
	if m.Arguments != nil && m.Tool == "" && m.Prompt == "" {
		bad(&m.Arguments, "arguments go with tool or prompt")
	}
	if m.Params != nil && m.Method == "" {
		bad(&m.Params, "params go with method")
	}
	if m.Path != "" && !strings.HasPrefix(m.Path, "/") {
		bad(&m.Path, "path %q must start with /", m.Path)
	}
}

// checkClient reports a client key that cannot work, and notes its answers' lines.
func (c *loaded) checkClient(orig *Case, bad func(field any, format string, args ...any)) config.Diags {
	if orig.MCP == nil && (orig.Client != nil || len(orig.Expect.Asked) > 0 || len(orig.Expect.Notified) > 0) {
		bad(orig, "client, expect.asked and expect.notified are for mcp cases")
	}
	for i := range orig.Expect.Asked {
		checkMessage(&orig.Expect.Asked[i], bad)
	}
	for i := range orig.Expect.Notified {
		checkMessage(&orig.Expect.Notified[i], bad)
	}
	if orig.Client == nil {
		return nil
	}
	if n := orig.Client.Capabilities; n != nil {
		if v, err := valueOf(n); err != nil {
			bad(&orig.Client.Capabilities, "%v", err)
		} else if _, ok := v.(map[string]any); !ok {
			bad(&orig.Client.Capabilities, "capabilities must be an object")
		}
	}
	for i := range orig.Client.Answers {
		a := &orig.Client.Answers[i]
		c.answerLines = append(c.answerLines, c.pos.Of(a).Line)
		n := 0
		for _, set := range []bool{a.Elicit != "", a.Sample != nil, a.Roots != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			bad(a, "an answer needs exactly one of elicit, sample or roots")
		}
		if a.Elicit == "" && (a.Mode != "" || a.Content != nil) {
			bad(a, "mode and content go with elicit")
		}
		if a.Content != nil && (a.Elicit != "accept" || a.Mode == "url") {
			bad(&a.Content, "content goes with an accepted form elicitation")
		}
		if a.Content != nil {
			if v, err := valueOf(a.Content); err != nil {
				bad(&a.Content, "%v", err)
			} else if _, ok := v.(map[string]any); !ok {
				bad(&a.Content, "content must be an object")
			}
		}
	}
	return nil
}

// checkMessage reports an expected message whose params are not a JSON value.
func checkMessage(m *Message, bad func(field any, format string, args ...any)) {
	if m.Params != nil {
		if _, err := valueOf(m.Params); err != nil {
			bad(&m.Params, "%v", err)
		}
	}
}

func expectBody(e *StubExpect) *yaml.Node {
	if e == nil {
		return nil
	}
	return e.Body
}

package octotest

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// wantsJSON reports whether e looks into the body as JSON.
func wantsJSON(e *Expect) bool {
	return e.Body != nil || e.BodyContains != nil || len(e.Paths) > 0
}

// checkHTTP checks the status and headers.
func checkHTTP(e *Expect, a *httpAnswer, o *outcome) {
	switch {
	case e.Status != 0 && a.status != e.Status:
		o.failf("status: expected %d, got %d: %s", e.Status, a.status, clip(string(a.body), 200))
	case e.Status == 0 && a.status/100 != 2:
		o.failf("status: expected 2xx, got %d: %s", a.status, clip(string(a.body), 200))
	}
	for _, k := range sortedKeys(e.Headers) {
		want, got := e.Headers[k], strings.Join(a.header.Values(k), ", ")
		if want != got {
			o.failf("headers.%s: expected %q, got %q", k, want, got)
		}
	}
}

// checkBody checks body (a JSON value, nil when not asked for) and its text.
func checkBody(e *Expect, body any, text string, o *outcome) {
	for _, ex := range []struct {
		n      *yaml.Node
		subset bool
		name   string
	}{{e.Body, false, "body"}, {e.BodyContains, true, "bodyContains"}} {
		if ex.n == nil {
			continue
		}
		want, err := valueOf(ex.n)
		if err != nil {
			o.failf("%s: %v", ex.name, err)
			continue
		}
		for _, p := range ignored(e) {
			drop(want, p)
			drop(body, p)
		}
		for _, mm := range compare("body", want, body, ex.subset) {
			o.failf("%s", mm)
		}
	}
	for _, p := range sortedKeys(e.Paths) {
		parts, _ := splitPath(p)
		want, err := valueOf(e.Paths[p])
		if err != nil {
			o.failf("paths.%s: %v", p, err)
			continue
		}
		got, ok := at(body, parts)
		if !ok {
			o.failf("paths.%s: expected %s, got nothing (no such path)", p, show(want))
			continue
		}
		for _, mm := range compare(p, want, got, false) {
			o.failf("%s", mm)
		}
	}
	if e.Text != nil && text != *e.Text {
		o.failf("text: expected %q, got %q", clip(*e.Text, 200), clip(text, 200))
	}
	for _, piece := range e.TextContains {
		if !strings.Contains(text, piece) {
			o.failf("textContains: expected the text to contain %q, got %q", piece, clip(text, 200))
		}
	}
}

// checkVars checks the vars of the flow delivered last.
func checkVars(e *Expect, seen *varsSeen, o *outcome) {
	if e.Vars == nil {
		return
	}
	want, err := valueOf(e.Vars)
	if err != nil {
		o.failf("vars: %v", err)
		return
	}
	got, ok := seen.get()
	if !ok {
		o.failf("vars: the flow gave no answer to look at")
		return
	}
	if got == nil {
		got = map[string]any{}
	}
	for _, mm := range compare("vars", want, got, true) {
		o.failf("%s", mm)
	}
}

// listFields are, by list, the key of a list result's items and the field that names each.
var listFields = map[string][2]string{
	"tools": {"tools", "name"}, "prompts": {"prompts", "name"},
	"resources": {"resources", "uri"}, "resourceTemplates": {"resourceTemplates", "uriTemplate"},
}

// checkListed checks what a list result holds and lacks, by name, wherever it is in the list.
func checkListed(e *Expect, list string, result any, o *outcome) {
	if len(e.Listed) == 0 && len(e.Unlisted) == 0 {
		return
	}
	f := listFields[list]
	r, _ := result.(map[string]any)
	items, _ := r[f[0]].([]any)
	byName := map[string]any{}
	var names []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		if name, ok := m[f[1]].(string); ok {
			byName[name] = m
			names = append(names, name)
		}
	}
	for _, name := range sortedKeys(e.Listed) {
		got, ok := byName[name]
		if !ok {
			o.failf("listed.%s: not in the list, which holds %s", name, clip(strings.Join(names, ", "), 300))
			continue
		}
		want, err := optional(e.Listed[name])
		if err != nil || want == nil {
			continue // checked when the file was loaded; null is being there at all
		}
		for _, mm := range compare("listed."+name, want, got, true) {
			o.failf("%s", mm)
		}
	}
	for _, name := range e.Unlisted {
		if _, ok := byName[name]; ok {
			o.failf("unlisted: %s is in the list", name)
		}
	}
}

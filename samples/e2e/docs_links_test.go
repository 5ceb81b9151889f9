package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is the front door: what octo is, set-up, install, a one-minute router and links.
// Tasks live in docs/guides/, so the README stays short, every guide is linked from it, and no
// link of the README or a guide points at a file or heading that is not there.
func TestDocsLinksResolve(t *testing.T) {
	root := repoRoot()
	readme := readDoc(t, filepath.Join(root, "README.md"))
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md is %d lines: a task belongs in a guide under docs/guides/", n)
	}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "guides", "*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides under docs/guides (%v)", err)
	}
	for _, g := range guides {
		if !strings.Contains(readme, "(docs/guides/"+filepath.Base(g)+")") {
			t.Errorf("README.md does not link %s", filepath.Base(g))
		}
		if !strings.HasPrefix(readDoc(t, g), "# ") {
			t.Errorf("%s does not start with its title (# …)", filepath.Base(g))
		}
	}
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, guides...) {
		checkLinks(t, root, doc)
	}
}

var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkLinks fails for every relative link of doc, outside code blocks, whose file or heading
// anchor does not exist.
func checkLinks(t *testing.T, root, doc string) {
	t.Helper()
	rel, _ := filepath.Rel(root, doc)
	for i, line := range proseLines(readDoc(t, doc)) {
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s:%d: link %s: no such file", rel, i+1, target)
				continue
			}
			if anchor == "" || info.IsDir() {
				continue
			}
			if !headingAnchors(readDoc(t, path))[anchor] {
				t.Errorf("%s:%d: link %s: no heading with that anchor", rel, i+1, target)
			}
		}
	}
}

// proseLines is the text's lines with those inside ``` blocks blanked, numbered as in the file.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors is the set of anchors a Markdown renderer gives the text's headings: lower
// case, punctuation dropped, spaces as hyphens.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	for _, l := range proseLines(text) {
		title, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

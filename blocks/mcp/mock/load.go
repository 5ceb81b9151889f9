package mock

import (
	"maps"
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// version is one loaded version of a server's settings: what it serves and
// the problems that left items out.
type version struct {
	s        *Settings
	cat      *catalog
	problems config.Diags
}

// newVersion checks and compiles decoded mcp-mock settings, written at pos. A
// problem that makes the settings unusable is returned as diags and nothing
// is built; problems with single items leave them out and come back as
// problems, with the rest usable.
func newVersion(s *Settings, pos *config.Positions) (*version, config.Diags) {
	if ds := check(s, pos); len(ds) > 0 {
		return nil, ds
	}
	if s.Path == "" {
		s.Path = DefaultPath
	}
	if s.Version == "" {
		s.Version = "1.0.0"
	}
	cat, problems := compileCatalog(s, pos)
	return &version{s: s, cat: cat, problems: problems}, nil
}

// check reports what the decoder cannot see but still makes the settings
// unusable as written.
func check(s *Settings, pos *config.Positions) config.Diags {
	var ds config.Diags
	if p := s.Path; p != "" {
		switch {
		case !strings.HasPrefix(p, "/"):
			ds = append(ds, pos.Diag(&s.Path, "path %q must start with /", p))
		case p == SSEPath || p == MessagesPath:
			ds = append(ds, pos.Diag(&s.Path, "path %q is reserved for the legacy HTTP+SSE transport (%s and %s)", p, SSEPath, MessagesPath))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
		if !validVariable(name) {
			ds = append(ds, pos.Diag(pos.Key(s.Variables, name),
				"variable name %q cannot be used in {{…}}: start with a letter or _, then letters, digits, _, - or .", name))
		}
	}
	for i := range s.Tools {
		checkTool(&s.Tools[i], pos, &ds)
	}
	for i := range s.Resources {
		checkResource(&s.Resources[i], pos, &ds)
	}
	for i := range s.Prompts {
		checkPrompt(&s.Prompts[i], pos, &ds)
	}
	return ds
}

// validVariable mirrors the placeholder language's variable names.
func validVariable(name string) bool {
	for i := 0; i < len(name); i++ {
		ch := name[i]
		letter := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_'
		if !letter && (i == 0 || !(ch >= '0' && ch <= '9' || ch == '-' || ch == '.')) {
			return false
		}
	}
	return name != ""
}

// problemLines renders problems one per line, for logs.
func problemLines(ds config.Diags) string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

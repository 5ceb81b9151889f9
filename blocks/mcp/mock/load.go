package mock

import (
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// version is one loaded version of a server's settings: what it serves and
// the problems that left items out.
type version struct {
	s        *settings
	cat      *catalog
	problems config.Diags
}

// Load decodes and compiles mcp-mock settings (node is the settings
// mapping, at where it sits). A problem that makes the settings unusable is
// returned as diags and nothing is built; problems with single items leave
// them out and come back as problems, with the rest usable.
func load(node *yaml.Node, at config.Where) (*version, config.Diags) {
	var s settings
	if ds := config.Decode(node, &s, at); len(ds) > 0 {
		return nil, ds
	}
	node = deref(node)
	if ds := check(&s, node, at); len(ds) > 0 {
		return nil, ds
	}
	if s.Path == "" {
		s.Path = DefaultPath
	}
	if s.Version == "" {
		s.Version = "1.0.0"
	}
	cat, problems := compileCatalog(&s, node, at)
	return &version{s: &s, cat: cat, problems: problems}, nil
}

// check reports what the strict decoder cannot see but still makes the
// settings unusable as written.
func check(s *settings, n *yaml.Node, at config.Where) config.Diags {
	var ds config.Diags
	if p := s.Path; p != "" {
		switch {
		case !strings.HasPrefix(p, "/"):
			ds.Addf(fieldOr(n, "path"), at.Field("path"), "path %q must start with /", p)
		case p == SSEPath || p == MessagesPath:
			ds.Addf(fieldOr(n, "path"), at.Field("path"), "path %q is reserved for the legacy HTTP+SSE transport (%s and %s)", p, SSEPath, MessagesPath)
		}
	}
	s.limitSettings.check(n, at, &ds)
	for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
		if !validVariable(name) {
			ds.Addf(fieldOr(field(n, "variables"), name), at.Field("variables").Field(name),
				"variable name %q cannot be used in {{…}}: start with a letter or _, then letters, digits, _, - or .", name)
		}
	}
	eachItem(n, at, "tools", len(s.Tools), func(i int, item *yaml.Node, iat config.Where) {
		checkTool(&s.Tools[i], item, iat, &ds)
	})
	eachItem(n, at, "resources", len(s.Resources), func(i int, item *yaml.Node, iat config.Where) {
		checkResource(&s.Resources[i], item, iat, &ds)
	})
	eachItem(n, at, "prompts", len(s.Prompts), func(i int, item *yaml.Node, iat config.Where) {
		checkPrompt(&s.Prompts[i], item, iat, &ds)
	})
	return ds
}

func eachItem(n *yaml.Node, at config.Where, key string, count int, fn func(int, *yaml.Node, config.Where)) {
	list := field(n, key)
	for i := range count {
		item := itemAt(list, i)
		fn(i, item, at.Field(key).Index(i))
	}
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

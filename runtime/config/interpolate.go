package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// vars resolves `${NAME}` against the declared env variables.
type vars struct {
	declared map[string]EnvVar
	names    []string // declaration order, for suggestions
	lookup   func(string) (string, bool)
}

// interpolate replaces `${NAME}` in every scalar value under n (never in keys). Parse has made
// every alias a copy of its own, so each copy is interpolated once, in its place. Diagnostics
// carry paths only; Load labels them with the item they fall in once the items are known.
func (vs *vars) interpolate(n *yaml.Node, at Where, ds *Diags) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			vs.interpolate(c, at, ds)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			vs.interpolate(c, at.Index(i), ds)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			vs.interpolate(n.Content[i+1], at.Field(n.Content[i].Value), ds)
		}
	case yaml.ScalarNode:
		vs.scalar(n, at, ds)
	}
}

// scalar interpolates one value. A plain scalar has its tag resolved again, so that
// `port: ${PORT}` is an integer just as `port: 8080` would be; quoted and tagged ones stay as
// they were written.
func (vs *vars) scalar(n *yaml.Node, at Where, ds *Diags) {
	if !strings.Contains(n.Value, "${") {
		return
	}
	out, problems := vs.expand(n.Value)
	for _, p := range problems {
		ds.Addf(n, at, "%s", p)
	}
	if len(problems) > 0 || out == n.Value {
		return
	}
	n.Value = out
	if n.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		n.Tag = ""
		n.Tag = n.ShortTag()
	}
}

// expand returns s with every `${NAME}` replaced and `$${` turned into a literal `${`,
// or the problems found.
func (vs *vars) expand(s string) (string, []string) {
	var b strings.Builder
	var problems []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), problems
		}
		if i > 0 && s[i-1] == '$' { // the escape $${
			b.WriteString(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			problems = append(problems, `unterminated "${" (write "$${" for a literal "${")`)
			b.WriteString(s[i:])
			return b.String(), problems
		}
		name := s[i+2 : i+end]
		val, problem := vs.value(name)
		if problem != "" {
			problems = append(problems, problem)
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

// value is the value of one variable: the process environment first, then the declared default.
func (vs *vars) value(name string) (string, string) {
	if !validEnvName(name) {
		return "", fmt.Sprintf("invalid variable name %q in \"${%s}\" (letters, digits and _; defaults go under env)", name, name)
	}
	v, ok := vs.declared[name]
	if !ok {
		msg := fmt.Sprintf("undeclared variable %q", name)
		if s := Suggest(name, vs.names); s != "" {
			return "", msg + fmt.Sprintf(" (did you mean %q?)", s)
		}
		return "", msg + "; declare it under env"
	}
	if val, ok := vs.lookup(name); ok {
		return val, ""
	}
	if v.Default != nil {
		return *v.Default, ""
	}
	return "", fmt.Sprintf("variable %q is not set and has no default", name)
}

// validEnvName reports whether name is a shell-style variable name.
func validEnvName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if r != '_' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

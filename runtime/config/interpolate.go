package config

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Interpolation is how `${VAR}` made a scalar's value from the text written in the file. The
// loader keeps one per scalar it changed (Config.Interpolated), so that expressions and templates
// are compiled from the text as written, with each variable taken as a value and never as source
// text.
type Interpolation struct {
	Written string // the scalar's value as written, with its `${NAME}`s and `$${`s
	Parts   []Part // Written cut into literal text and variables, in order
}

// Part is a run of literal text of a written scalar, or one `${NAME}` with its value.
type Part struct {
	Text string // the literal text (a `$${` already a `${`), or the variable's value
	Var  string // the variable's name; empty for literal text
	At   int    // where the part starts in Written, in bytes
}

// Value is the scalar's value: the parts' texts joined.
func (in Interpolation) Value() string {
	var b strings.Builder
	for _, p := range in.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Vars names the variables the scalar was made from, each once, in the order written.
func (in Interpolation) Vars() []string {
	var out []string
	for _, p := range in.Parts {
		if p.Var != "" && !slices.Contains(out, p.Var) {
			out = append(out, p.Var)
		}
	}
	return out
}

// vars resolves `${NAME}` against the declared env variables.
type vars struct {
	declared map[string]EnvVar
	names    []string // declaration order, for suggestions
	lookup   func(string) (string, bool)
	done     map[*yaml.Node]Interpolation // what interpolate changed
	// partial says a file could not be read or parsed: a name not declared may be declared
	// there, so it is not reported; each value reading one is in unsure instead, to be left out
	// with its item (LoadPartial).
	partial bool
	unsure  []Where
	missed  bool // the value being expanded read a name that may be in a file left out
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
	vs.missed = false
	parts, problems := vs.expand(n.Value)
	for _, p := range problems {
		ds.Addf(n, at, "%s", p)
	}
	if vs.missed {
		vs.unsure = append(vs.unsure, at)
	}
	if len(problems) > 0 || vs.missed {
		return
	}
	in := Interpolation{Written: n.Value, Parts: parts}
	vs.done[n] = in
	n.Value = in.Value()
	if n.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		n.Tag = ""
		n.Tag = n.ShortTag()
	}
}

// expand cuts s into literal text and `${NAME}`s with their values, a `$${` being a literal
// `${`, or returns the problems found.
func (vs *vars) expand(s string) ([]Part, []string) {
	var (
		parts    []Part
		problems []string
		pos      int
	)
	literal := func(end int) {
		if end > pos {
			parts = append(parts, Part{Text: s[pos:end], At: pos})
		}
	}
	for {
		i := strings.Index(s[pos:], "${")
		if i < 0 {
			literal(len(s))
			return parts, problems
		}
		i += pos
		if i > pos && s[i-1] == '$' { // the escape $${
			literal(i - 1)
			parts = append(parts, Part{Text: "${", At: i - 1})
			pos = i + 2
			continue
		}
		literal(i)
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			problems = append(problems, `unterminated "${" (write "$${" for a literal "${")`)
			return parts, problems
		}
		name := s[i+2 : i+end]
		val, problem := vs.value(name)
		if problem != "" {
			problems = append(problems, problem)
		}
		parts = append(parts, Part{Text: val, Var: name, At: i})
		pos = i + end + 1
	}
}

// value is the value of one variable: the process environment first, then the declared default.
func (vs *vars) value(name string) (string, string) {
	if !validEnvName(name) {
		return "", fmt.Sprintf("invalid variable name %q in \"${%s}\" (letters, digits and _; defaults go under env)", name, name)
	}
	v, ok := vs.declared[name]
	switch {
	case !ok && vs.partial:
		vs.missed = true
		return "", ""
	case !ok:
		return "", Undeclared(name, vs.names)
	}
	if val, ok := vs.lookup(name); ok {
		return val, ""
	}
	if v.Default != nil {
		return *v.Default, ""
	}
	return "", NotSet(name)
}

// NotSet says that the declared variable name has no value, and how to give it one.
func NotSet(name string) string {
	return fmt.Sprintf("variable %q is not set and has no default: set it in the environment (octo test: a case's env or --env-file), or give it a default under env", name)
}

// Undeclared says that variable name is not declared, suggesting the closest of declared: the
// complaint about `${NAME}`, and about env.NAME in an expression.
func Undeclared(name string, declared []string) string {
	msg := fmt.Sprintf("undeclared variable %q", name)
	if s := Suggest(name, declared); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; declare it under env"
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

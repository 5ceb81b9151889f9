package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/octo-run/octo/runtime/config"
)

// What an expression reads by a name written in it is checked when it is compiled, where the
// answer is known at build time:
//
//   - env.NAME (or env["NAME"]) must name a declared variable: env is fixed when a config is
//     built, so any other name would always be missing.
//   - vars.name must be a var that a block before this one can have set, on some path through
//     the flow: a block of the same pipeline before it, a block inside a branch of a composite
//     block before it, or the composite block around it for its branches. Blocks say what they
//     set (VarsSetter, and the vars tag of a branch); a flow's source sets none. After a block
//     that sets names known only at run time (AnyVars), or one whose type is unknown, nothing is
//     reported: the builder does not guess.
//
// A name read any other way (vars[key], "jwt" in vars) is not checked.

// VarsSetter is implemented by the settings type of a block that sets vars for the blocks after
// it, such as jwt-validate, which leaves a token's claims in vars.jwt. SetsVars is called on the
// decoded settings, so the names may follow them (a setting naming where a result goes), and on
// a zero value to tell users which block type sets a var they read.
type VarsSetter interface {
	// SetsVars names the vars the block sets; AnyVars among them says it sets names known only
	// at run time.
	SetsVars() []string
}

// AnyVars, among the names a VarsSetter returns, says that a block sets vars whose names are
// known only at run time: after it, reading any var is allowed.
const AnyVars = "*"

// varsTag is the struct tag of a Branch field naming the vars its block sets for that branch
// (`vars:"error"`): the branch's blocks may read them besides those set before the block.
const varsTag = "vars"

// followsTag is the struct tag of a Branch field that runs after the branch of another key of
// the same settings (`follows:"beforeTask"`): it may read the vars that one sets. The branch it
// follows must be the earlier field, which is decoded first.
const followsTag = "follows"

// varSet is what vars can hold at a place in a flow: the names blocks before it can have set,
// or any name at all.
type varSet struct {
	names []string // sorted, each once
	any   bool
}

// anyVars is the set after a block that may set any name.
var anyVars = varSet{any: true}

// with returns the set with names added; AnyVars among them makes it any.
func (v varSet) with(names ...string) varSet {
	if v.any {
		return v
	}
	out := varSet{names: slices.Clone(v.names)}
	for _, n := range names {
		if n == AnyVars {
			return anyVars
		}
		if i, found := slices.BinarySearch(out.names, n); !found {
			out.names = slices.Insert(out.names, i, n)
		}
	}
	return out
}

// union is what either set can hold.
func (v varSet) union(o varSet) varSet {
	if o.any {
		return anyVars
	}
	return v.with(o.names...)
}

// has reports whether name can be set.
func (v varSet) has(name string) bool {
	_, found := slices.BinarySearch(v.names, name)
	return v.any || found
}

// exprScope is what an expression may read by name where it is written.
type exprScope struct {
	env map[string]string // the variables' values, for Eval
	// declared names every declared variable, in order; nil outside a service build, where
	// env.NAME is not checked.
	declared []string
	// vars is what vars can hold before the block; nil where that is not known (outside a
	// flow), and vars.name is not checked.
	vars *varSet
	// body is the keys the body can have; nil where they are known only at run time, and
	// body.name is not checked (see body.go).
	body *BodyKeys
}

// check returns the first name of reads, in the order written, that sc says cannot be read, with
// the reason; "" when every one can.
func (sc *exprScope) check(c *nameCollector) (read, string) {
	slices.SortFunc(c.reads, func(a, b read) int { return a.at - b.at })
	for _, r := range c.reads {
		switch {
		case r.root == "env" && sc.declared != nil && !slices.Contains(sc.declared, r.name):
			return r, config.Undeclared(r.name, sc.declared)
		case r.root == "vars" && sc.vars != nil && !sc.vars.has(r.name):
			return r, unknownVar(r.name, sc.vars.names)
		case r.root == "body" && !sc.body.has(r.name):
			return r, sc.body.unknownKey(r.name)
		}
	}
	return read{}, ""
}

// unknownVar says why vars.name cannot be read: the name closest to it that can, or which block
// types set it.
func unknownVar(name string, known []string) string {
	msg := fmt.Sprintf("unknown var %q", name)
	if s := config.Suggest(name, known); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	msg += ": no block before this one sets it"
	if setters := settersOf(name); len(setters) > 0 {
		msg += " (" + strings.Join(setters, " or ") + " would)"
	}
	return msg
}

// settersOf lists the registered block types whose settings, as they are by default, set name.
func settersOf(name string) []string {
	var out []string
	for _, spec := range BlockTypes() {
		vs, ok := reflect.New(spec.Settings().Type).Interface().(VarsSetter)
		if ok && slices.Contains(vs.SetsVars(), name) {
			out = append(out, spec.Type)
		}
	}
	return out
}

// setsVars is what the decoded settings of a block say it sets.
func setsVars(settings any) []string {
	if vs, ok := settings.(VarsSetter); ok {
		return vs.SetsVars()
	}
	return nil
}

// runeOffset is the byte offset of rune offset r in text.
func runeOffset(text string, r int) int {
	off := 0
	for ; r > 0 && off < len(text); r-- {
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return off
}

// IntoVar is NAME of an into: vars.NAME setting, when NAME is an identifier expressions can
// reach (letters, digits and _, not starting with a digit).
func IntoVar(into string) (string, bool) {
	name, ok := strings.CutPrefix(into, "vars.")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return "", false
	}
	for _, c := range []byte(name) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", false
		}
	}
	return name, true
}

package placeholder

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime/jsonv"
)

// Input is what a client sent with one request.
type Input struct {
	Args    map[string]any    // tool or prompt arguments, as decoded from JSON
	Params  map[string]string // URI template parts matched by a resource read, or an HTTP route's path parameters
	Body    any               // an HTTP request's body, as decoded from JSON (nil: none, or not JSON)
	Query   map[string]string // an HTTP request's query parameters, the first value of each
	Headers map[string]string // an HTTP request's headers, lower-case names, the first value of each
}

// tree is the JSON value a tagArgs source reads.
func (in *Input) tree(src source) any {
	if src == srcBody {
		return in.Body
	}
	return in.Args
}

// strings is the string map a tagParams source reads.
func (in *Input) strings(src source) map[string]string {
	switch src {
	case srcQuery:
		return in.Query
	case srcHeaders:
		return in.Headers
	}
	return in.Params
}

// Ref is one use of an argument or URI template part, so a caller can check the names
// against a tool's input schema or a resource's URI template at build time.
type Ref struct {
	Source string // "args", "params", "body", "query" or "headers"
	Name   string // first path part ("city" in args.city.zip); "" for the whole map
	Pos    Pos
}

// Template is a compiled answer text: literal runs and prepared tags, ready to render.
type Template struct {
	segs   []segment
	slots  []dynCall // values drawn once per render and reused by name
	refs   []Ref
	hasDyn bool
	static bool
	text   string // the whole answer when static
	size   int    // output size guess, to allocate once
}

type op uint8

const (
	opLit    op = iota
	opArg       // one argument by path
	opArgs      // all arguments
	opParam     // one URI template part
	opParams    // all URI template parts
	opDyn       // a fresh draw
	opSlot      // a draw shared by name within the render
)

type segment struct {
	op   op
	src  source // opArg, opArgs, opParam, opParams: which of the request's values
	ctx  context
	text string // opLit text, opParam key
	path []pathPart
	call dynCall
	slot int
}

// Compile parses text once: it fills in variables from vars (values are inserted as
// they are, never scanned for tags), binds $name arguments and checks every tag. It
// reports every bad tag at once: one *Error, or an errors.Join of them in text order.
func Compile(text string, vars map[string]string) (*Template, error) {
	pieces, errs := scan(text)
	markContexts(pieces)
	broken := map[string]bool{} // names whose drawing tag is already reported
	items := make([]item, 0, len(pieces))
	for _, p := range pieces {
		if p.tag == nil {
			items = append(items, item{lit: p.lit})
			continue
		}
		t, msg := parseTag(p.tag)
		if msg != "" {
			errs = append(errs, newError(p.tag.pos, p.tag.src, "%s", msg))
			if t.alias != "" {
				broken[t.alias] = true
			}
			continue
		}
		items = append(items, item{tag: &t})
	}
	c := &compiler{vars: vars, slots: map[string]slotDef{}, broken: broken}
	errs = append(errs, c.defineSlots(items)...)
	errs = append(errs, c.build(items)...)
	if len(errs) > 0 {
		return nil, joinSorted(errs)
	}
	return c.finish(), nil
}

// item is literal text or a tag that parsed; tags that did not are already reported.
type item struct {
	lit string
	tag *parsedTag
}

type slotDef struct {
	index int
	pos   Pos
}

type compiler struct {
	vars   map[string]string
	slots  map[string]slotDef
	broken map[string]bool
	t      Template
	lit    strings.Builder // literal text not yet made a segment
}

// defineSlots registers every "as name" first, so a name may be used before the tag that
// draws it (JSON key order rarely matches the order a reader expects).
func (c *compiler) defineSlots(items []item) []error {
	var errs []error
	for _, it := range items {
		t := it.tag
		if t == nil || t.alias == "" {
			continue
		}
		if prev, dup := c.slots[t.alias]; dup {
			errs = append(errs, newError(t.raw.pos, t.raw.src, "%q is already defined at %d:%d",
				t.alias, prev.pos.Line, prev.pos.Column))
			continue
		}
		if _, clash := c.vars[t.alias]; clash {
			errs = append(errs, newError(t.raw.pos, t.raw.src,
				"%q is already a variable: pick another name for this value", t.alias))
			continue
		}
		c.slots[t.alias] = slotDef{index: len(c.t.slots), pos: t.raw.pos}
		c.t.slots = append(c.t.slots, t.call)
	}
	return errs
}

// build turns items into segments, merging literal text and filled-in variables.
func (c *compiler) build(items []item) []error {
	var errs []error
	for _, it := range items {
		if it.tag == nil {
			c.lit.WriteString(it.lit)
			continue
		}
		if err := c.add(it.tag); err != nil {
			errs = append(errs, err)
		}
	}
	c.flush()
	return errs
}

func (c *compiler) add(t *parsedTag) error {
	ctx := t.raw.ctx
	switch t.kind {
	case tagArgs:
		c.ref(sourceNames[t.src], t)
		if t.path == nil {
			c.emit(segment{op: opArgs, src: t.src, ctx: ctx})
		} else {
			c.emit(segment{op: opArg, src: t.src, ctx: ctx, path: t.path})
		}
	case tagParams:
		c.ref(sourceNames[t.src], t)
		if t.name == "" {
			c.emit(segment{op: opParams, src: t.src, ctx: ctx})
		} else {
			c.emit(segment{op: opParam, src: t.src, ctx: ctx, text: t.name})
		}
	case tagDyn:
		c.t.hasDyn = true
		if t.alias != "" {
			c.emit(segment{op: opSlot, ctx: ctx, slot: c.slots[t.alias].index})
		} else {
			c.emit(segment{op: opDyn, ctx: ctx, call: t.call})
		}
	case tagName:
		return c.name(t)
	}
	return nil
}

// name resolves {{name}}: a value drawn with "as name" in this text, else a variable.
func (c *compiler) name(t *parsedTag) error {
	if s, ok := c.slots[t.name]; ok {
		c.t.hasDyn = true
		c.emit(segment{op: opSlot, ctx: t.raw.ctx, slot: s.index})
		return nil
	}
	v, ok := c.vars[t.name]
	if !ok {
		if c.broken[t.name] {
			return nil // one mistake, one message: the drawing tag is already reported
		}
		return newError(t.raw.pos, t.raw.src, "unknown variable %q%s", t.name, c.hint(t.name))
	}
	c.lit.Write(appendVariable(nil, t.raw.ctx, v))
	return nil
}

// hint suggests the closest variable, reuse name or args/params path; with nothing close,
// it reminds that tool arguments are written args.NAME, the likeliest slip.
func (c *compiler) hint(name string) string {
	names := slices.Sorted(maps.Keys(c.vars))
	names = append(names, slices.Sorted(maps.Keys(c.slots))...)
	head, rest, dotted := strings.Cut(name, ".")
	best := suggest(name, names)
	// A dotted name is a path, so a root close to args or params is the likelier meaning.
	if root := suggest(head, []string{"args", "params"}); root != "" && (best == "" || dotted) {
		best = root
		if dotted {
			best += "." + rest
		}
	}
	if best != "" {
		return didYouMean(best)
	}
	if !dotted {
		return fmt.Sprintf(" (for a tool argument write {{args.%s}})", name)
	}
	return ""
}

// appendVariable writes a variable's value for its context. Where a JSON value goes, a
// value that is JSON (8080, true, {"a":1}) is written raw and anything else quoted, so
// the answer stays valid JSON either way.
func appendVariable(dst []byte, ctx context, v string) []byte {
	if ctx == ctxJSONValue && jsonv.Valid([]byte(v)) {
		return append(dst, v...)
	}
	return appendString(dst, ctx, v)
}

func (c *compiler) ref(source string, t *parsedTag) {
	name := t.name
	if t.kind == tagArgs && t.path != nil {
		name = t.path[0].key
	}
	c.t.refs = append(c.t.refs, Ref{Source: source, Name: name, Pos: t.raw.pos})
}

func (c *compiler) emit(s segment) {
	c.flush()
	c.t.size += 32
	c.t.segs = append(c.t.segs, s)
}

func (c *compiler) flush() {
	if c.lit.Len() == 0 {
		return
	}
	c.t.size += c.lit.Len()
	c.t.segs = append(c.t.segs, segment{op: opLit, text: c.lit.String()})
	c.lit.Reset()
}

func (c *compiler) finish() *Template {
	t := &c.t
	t.static = true
	for _, s := range t.segs {
		if s.op != opLit {
			t.static = false
		}
	}
	if t.static && len(t.segs) == 1 {
		t.text = t.segs[0].text
	}
	return t
}

// joinSorted returns one error as is, several joined in text order.
func joinSorted(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		var ea, eb *Error
		errors.As(a, &ea)
		errors.As(b, &eb)
		return cmp.Compare(ea.Offset, eb.Offset)
	})
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// Static reports whether the template renders the same text every time: no arguments,
// URI parts or dynamic values (variables are already filled in).
func (t *Template) Static() bool { return t.static }

// Refs lists the args and params tags in text order.
func (t *Template) Refs() []Ref { return slices.Clone(t.refs) }

// Literal returns text written so that it renders as itself: each {{ gets the backslash that
// makes it literal (JSON text, whose backslashes before a { come in pairs, stays as it was).
func Literal(text string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	var b strings.Builder
	run := 0 // backslashes just before i
	for i := 0; i < len(text); i++ {
		if text[i] == '{' && i+1 < len(text) && text[i+1] == '{' && run%2 == 0 {
			b.WriteString(`\{{`)
			i, run = i+1, 0
			continue
		}
		if text[i] == '\\' {
			run++
		} else {
			run = 0
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

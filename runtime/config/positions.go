package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// Position is where a decoded setting was written: its config path and item, the line and column
// of its value and of its key. A setting left out is positioned at the mapping that lacks it,
// with the path it would have had.
type Position struct {
	At              Where
	Line, Col       int // the value's; 0 when unknown
	KeyLine, KeyCol int // the key's; 0 for a list item and for the settings themselves
	// Written is false for a setting left out.
	Written bool
	// Vars are the variables the value was made from (`port: ${HTTP_PORT}`), in order; set
	// where the decoder was given Config.Interpolated.
	Vars  []string
	style yaml.Style
	src   []byte     // the text of the file, when known (Sources.Position): see Inside
	node  *yaml.Node // the value as written, for Pointer; nil when unknown
}

// NodePosition is the position of node n (which may be nil) at w.
func NodePosition(n *yaml.Node, w Where) Position {
	p := Position{At: w}
	if n != nil {
		p.Line, p.Col, p.style, p.Written, p.node = n.Line, n.Column, n.Style, true, n
	}
	return p
}

// Pointer is the position of the part of a JSON setting that JSON pointer ptr (RFC 6901:
// /properties/city/type) names: where it was written when the setting is YAML, its path
// extended either way. A setting written as JSON text keeps its own line and column (the
// caller finds the part in the text: Inside), as does a pointer that goes past what was written.
func (p Position) Pointer(ptr string) Position {
	if ptr == "" {
		return p
	}
	n := p.node
	for _, seg := range PointerSegments(ptr) {
		i, err := strconv.Atoi(seg)
		isIndex := err == nil && i >= 0 && (n == nil || n.Kind == yaml.SequenceNode)
		if isIndex {
			p.At = p.At.Index(i)
		} else {
			p.At = p.At.Field(seg)
		}
		var key *yaml.Node
		switch {
		case n != nil && n.Kind == yaml.MappingNode:
			key, n = mappingEntry(n, seg)
		case n != nil && isIndex && i < len(n.Content):
			n = n.Content[i]
		default:
			n = nil
		}
		if n == nil {
			p.node = nil // past what was written as YAML: the text's own line and column stay
			continue
		}
		p.Line, p.Col, p.style, p.node, p.src = n.Line, n.Column, n.Style, n, nil
		p.KeyLine, p.KeyCol = 0, 0
		if key != nil {
			p.KeyLine, p.KeyCol = key.Line, key.Column
		}
	}
	return p
}

// PointerSegments splits a JSON pointer (RFC 6901) into its segments, unescaped (~1 is /, ~0
// is ~); none for "".
func PointerSegments(ptr string) []string {
	if ptr == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

// mappingEntry is the key and value of mapping n whose key is k; nils when it has none.
func mappingEntry(n *yaml.Node, k string) (key, val *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// Diag is a diagnostic at the setting's value.
func (p Position) Diag(msg string) Diag {
	return Diag{File: p.At.File, Line: p.Line, Col: p.Col, Path: p.At.Path, Kind: p.At.Kind, Name: p.At.Name, Msg: msg}
}

// KeyDiag is a diagnostic at the setting's key, or at its value when it has none.
func (p Position) KeyDiag(msg string) Diag {
	d := p.Diag(msg)
	if p.KeyLine > 0 {
		d.Line, d.Col = p.KeyLine, p.KeyCol
	}
	return d
}

// Inside maps a line and column inside the setting's text (both from 1, as a compiler reports
// them) to the file. With the file's text at hand (Sources.Position), it is where that character
// was written: past a quote and escapes, on the line a folded or block scalar (| or >) holds it,
// at that scalar's indentation. Without it, an estimate: the value's own position plus the
// offset, one column more after an opening quote; the lines of a block scalar below its
// indicator; a later line of other text at the value.
func (p Position) Inside(line, col int) (int, int) {
	if p.Line == 0 {
		return 0, 0
	}
	if p.src == nil {
		return p.estimate(line, col)
	}
	if l, c, ok := locate(p.src, p, line, col); ok {
		return l, c
	}
	// Past the text the file holds (an empty block scalar on the last line): the estimate,
	// kept inside the file.
	l, c := p.estimate(line, col)
	return min(l, bytes.Count(p.src, []byte("\n"))+1), c
}

// estimate is where line and col of the setting's text would be, from the value's position and
// style alone.
func (p Position) estimate(line, col int) (int, int) {
	switch {
	case p.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return p.Line + line, p.Col + col - 1
	case line == 1:
		if p.style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			col++
		}
		return p.Line, p.Col + col - 1
	}
	return p.Line, p.Col
}

// DiagInside is a diagnostic at a line and column inside the setting's text (see Inside).
func (p Position) DiagInside(line, col int, msg string) Diag {
	d := p.Diag(msg)
	d.Line, d.Col = p.Inside(line, col)
	return d
}

// Positions records where each setting of one decode was written, by the address of the value
// it was decoded into: a check made after decoding finds its line from the field it checks
// (&s.Port, &s.Tools[2].Name), with no YAML node at hand.
type Positions struct {
	root    Position
	byAddr  map[addrKey]Position
	entries map[entryKey]Position
}

// addrKey tells a struct from its first field, which share an address.
type addrKey struct {
	p unsafe.Pointer
	t reflect.Type
}

// entryKey is a map entry: the map and its key.
type entryKey struct {
	m   unsafe.Pointer
	key string
}

// NewPositions returns an empty table whose settings themselves are at root.
func NewPositions(root Position) *Positions {
	return &Positions{root: root, byAddr: map[addrKey]Position{}, entries: map[entryKey]Position{}}
}

// Root is the position of the settings themselves.
func (ps *Positions) Root() Position { return ps.root }

// Of returns the position of the value field points to (a pointer into the decoded settings:
// a field, a list item, or what a pointer field was allocated). Anything else is positioned at
// the settings themselves.
func (ps *Positions) Of(field any) Position {
	v := reflect.ValueOf(field)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return ps.root
	}
	if p, ok := ps.byAddr[addrKey{v.UnsafePointer(), v.Type().Elem()}]; ok {
		return p
	}
	return ps.root
}

// Key returns the position of key inside container: a map of the settings (its entry), or a
// pointer to a settings struct (its field of that yaml key). A key that was not written is
// positioned at the container.
func (ps *Positions) Key(container any, key string) Position {
	v := reflect.ValueOf(container)
	switch {
	case v.Kind() == reflect.Map:
		if p, ok := ps.entries[entryKey{v.UnsafePointer(), key}]; ok {
			return p
		}
		return ps.Of(container)
	case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct:
		info := infoOf(v.Elem().Type())
		if i, ok := info.byName[key]; ok {
			return ps.Of(v.Elem().FieldByIndex(info.fields[i].Index).Addr().Interface())
		}
	}
	return ps.Of(container)
}

// Diag is a diagnostic at the value field points to (see Of), or at a Position.
func (ps *Positions) Diag(field any, format string, args ...any) Diag {
	p, ok := field.(Position)
	if !ok {
		p = ps.Of(field)
	}
	return p.Diag(fmt.Sprintf(format, args...))
}

// record notes where the value at v (when addressable) was written.
func (ps *Positions) record(v reflect.Value, p Position) {
	if ps != nil && v.CanAddr() {
		ps.byAddr[addrKey{v.Addr().UnsafePointer(), v.Type()}] = p
	}
}

// recordInline notes the structs struct v embeds inline (`yaml:",inline"`) as written where v
// was, since their keys are v's.
func (ps *Positions) recordInline(v reflect.Value, p Position) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "-" && hasOpt(opts, "inline") && f.Type.Kind() == reflect.Struct {
			fv := v.Field(i)
			ps.record(fv, p)
			ps.recordInline(fv, p)
		}
	}
}

// recordEntry notes where the entry key of map m was written.
func (ps *Positions) recordEntry(m reflect.Value, key string, p Position) {
	if ps != nil {
		ps.entries[entryKey{m.UnsafePointer(), key}] = p
	}
}

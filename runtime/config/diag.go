package config

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Diag is one configuration diagnostic: where it is, which item it belongs to and what is wrong.
type Diag struct {
	File      string
	Line, Col int
	Path      string // config path such as flows[0].process[1].settings.value
	Kind      string // item kind: "flow", "connector", "template" or a block's type
	Name      string // item name, empty when the item has none
	Msg       string
}

// String renders the diagnostic as `file:line:col: path (kind "name"): msg`.
func (d Diag) String() string {
	var b strings.Builder
	b.WriteString(d.position())
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if d.Path != "" {
		b.WriteString(d.Path)
		if d.Kind != "" {
			b.WriteByte(' ')
		}
	}
	if d.Kind != "" {
		b.WriteByte('(')
		b.WriteString(d.Kind)
		if d.Name != "" {
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(d.Name))
		}
		b.WriteByte(')')
	}
	if d.Path != "" || d.Kind != "" {
		b.WriteString(": ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// Error makes a single Diag usable as an error.
func (d Diag) Error() string { return d.String() }

// position renders file:line:col, leaving out the parts that are unknown.
func (d Diag) position() string {
	pos := d.File
	if d.Line > 0 {
		if pos != "" {
			pos += ":"
		}
		pos += strconv.Itoa(d.Line)
		if d.Col > 0 {
			pos += ":" + strconv.Itoa(d.Col)
		}
	}
	return pos
}

// Diags collects diagnostics; it is also the error type Load returns, so callers can
// errors.As it back into a list.
type Diags []Diag

// Addf adds a diagnostic positioned at n (which may be nil) and located by at.
func (ds *Diags) Addf(n *yaml.Node, at Where, format string, args ...any) {
	*ds = append(*ds, at.Diag(n, fmt.Sprintf(format, args...)))
}

// Sort orders the diagnostics by file, line and column, keeping the order of equal positions.
func (ds Diags) Sort() {
	slices.SortStableFunc(ds, func(a, b Diag) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// Err returns nil when there are no diagnostics, otherwise a sorted copy without repeats as an error.
func (ds Diags) Err() error {
	if len(ds) == 0 {
		return nil
	}
	out := make(Diags, 0, len(ds))
	seen := make(map[Diag]bool, len(ds))
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	out.Sort()
	return out
}

// Error joins every diagnostic, one per line.
func (ds Diags) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each diagnostic so errors.As can also find a single Diag.
func (ds Diags) Unwrap() []error {
	errs := make([]error, len(ds))
	for i, d := range ds {
		errs[i] = d
	}
	return errs
}

// Where locates a node for diagnostics: the file, the config path and the item it belongs to.
// The line and column come from the node itself.
type Where struct {
	File, Path, Kind, Name string
}

// Field is the location of key inside the mapping at w.
func (w Where) Field(key string) Where {
	if !isPlainKey(key) {
		w.Path += "[" + strconv.Quote(key) + "]"
		return w
	}
	if w.Path != "" {
		w.Path += "."
	}
	w.Path += key
	return w
}

// Index is the location of item i of the list at w.
func (w Where) Index(i int) Where {
	w.Path += "[" + strconv.Itoa(i) + "]"
	return w
}

// Label names the item that owns w and everything below it, such as kind "connector", name "api".
func (w Where) Label(kind, name string) Where {
	w.Kind, w.Name = kind, name
	return w
}

// Diag builds a diagnostic at n (which may be nil) located by w.
func (w Where) Diag(n *yaml.Node, msg string) Diag {
	d := Diag{File: w.File, Path: w.Path, Kind: w.Kind, Name: w.Name, Msg: msg}
	if n != nil {
		d.Line, d.Col = n.Line, n.Column
	}
	return d
}

// pos renders the position of n in w's file, for messages that point back at an earlier item.
func (w Where) pos(n *yaml.Node) string {
	return w.Diag(n, "").position()
}

// isPlainKey reports whether key can follow a dot in a path without quoting.
func isPlainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		ok := r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

package reference

import (
	"errors"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// row is one key of a settings table: nested keys are written as paths (tools[].name).
type row struct {
	key, typ, def, allowed, doc, example string
	required                             bool
}

// rows flattens spec into the rows of its table, each key followed by the keys inside it.
func rows(spec *runtime.SettingsSpec) []row {
	var out []row
	addRows(&out, spec, "", map[*runtime.SettingsSpec]bool{})
	return out
}

func addRows(out *[]row, spec *runtime.SettingsSpec, prefix string, open map[*runtime.SettingsSpec]bool) {
	if spec == nil || open[spec] {
		return // a settings type inside itself is described once
	}
	open[spec] = true
	defer delete(open, spec)
	for _, f := range spec.Fields {
		key := prefix + f.Key
		*out = append(*out, row{key: key, typ: typeName(f), def: f.Default, allowed: allowed(f),
			doc: f.Doc, example: f.Example, required: f.Required})
		inner, path := nested(f)
		addRows(out, inner, key+path, open)
	}
}

// nested is the settings type inside f, if any, and the path step into it.
func nested(f *runtime.FieldSpec) (*runtime.SettingsSpec, string) {
	switch {
	case f.Kind == runtime.KindObject:
		return f.Object, "."
	case f.Kind == runtime.KindList && f.Elem.Kind == runtime.KindObject:
		return f.Elem.Object, "[]."
	case f.Kind == runtime.KindMap && f.Elem.Kind == runtime.KindObject:
		return f.Elem.Object, ".*."
	}
	return nil, ""
}

// component is a block's or connector's reference, as both the text and the Markdown show it.
type component struct {
	kind, name, summary, doc, example string
	tables                            []table
}

// table is one settings table with what it is.
type table struct {
	title, where string
	rows         []row
}

// find returns the reference of the block or connector named name.
func find(name string) (component, error) {
	var names []string
	for _, b := range runtime.BlockTypes() {
		if b.Type == name {
			return blockComponent(b), nil
		}
		names = append(names, b.Type)
	}
	for _, c := range runtime.ConnectorTypes() {
		if c.Type == name {
			return connectorComponent(c), nil
		}
		names = append(names, c.Type)
	}
	return component{}, errors.New(config.Unknown("block or connector type", name, names))
}

func blockComponent(b runtime.BlockSpec) component {
	where := "Written under the block's `settings`."
	if b.Composite {
		where = "A composite block: its keys are written beside `type` and `name`, not under `settings`."
	}
	example := b.Example
	if b.ExampleConnectors != "" { // the connector it names, as the config declares it
		example = "# beside connectors: [ " + b.ExampleConnectors + " ]\n" + example
	}
	return component{kind: "block", name: b.Type, summary: b.Summary, doc: b.Doc, example: example,
		tables: []table{{"Settings", where, rows(b.Settings())}}}
}

func connectorComponent(c runtime.ConnectorSpec) component {
	return component{kind: "connector", name: c.Type, summary: c.Summary, doc: c.Doc, example: c.Example,
		tables: []table{
			{"Settings", "Written under the connector's `settings`.", rows(c.Settings())},
			{"Source settings", "Written under `source.settings` of a flow on " + article(c.Type) + " " + c.Type + " connector.", rows(c.Source.Spec())},
		}}
}

// article is the indefinite article before word, by its first letter: "an agent", "a stdio".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

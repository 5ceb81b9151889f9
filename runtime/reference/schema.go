package reference

import (
	"fmt"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// ConfigSchema names the schema of a flow config file; the others are named by the config
// adapter file they describe (runtime.AdapterFile.Name).
const ConfigSchema = "config"

// draft is the JSON Schema dialect every schema declares.
const draft = "https://json-schema.org/draft/2020-12/schema"

// Patterns of text the runtime reads as more than text.
const (
	// variablePattern finds a `${NAME}` in a value, which the loader replaces before the
	// setting is read, so `port: ${HTTP_PORT}` is a number once read.
	variablePattern = `\$\{[A-Za-z_][A-Za-z0-9_]*\}`
	// durationPattern is Go duration text (time.ParseDuration), spaces around allowed.
	durationPattern = `^\s*[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)\s*$`
	envNamePattern  = `^[A-Za-z_][A-Za-z0-9_]*$`
)

// SchemaNames lists the schemas Schema writes: the flow config's, then each config adapter
// file's.
func SchemaNames() []string {
	names := []string{ConfigSchema}
	for _, a := range runtime.AdapterTypes() {
		for _, f := range a.Files {
			names = append(names, f.Name)
		}
	}
	return names
}

// SchemaFile is the file name a schema is written to: octo.schema.json for a flow config,
// octo-NAME.schema.json for an adapter file.
func SchemaFile(name string) string {
	if name == ConfigSchema {
		return "octo.schema.json"
	}
	return "octo-" + name + ".schema.json"
}

// Schema returns the JSON Schema (draft 2020-12) named name (see SchemaNames), indented, the
// same bytes for the same registered components.
func Schema(name string) ([]byte, error) {
	if name == ConfigSchema {
		return indented(configSchema())
	}
	for _, a := range runtime.AdapterTypes() {
		for _, f := range a.Files {
			if f.Name == name {
				return indented(fileSchema(a, f))
			}
		}
	}
	return nil, fmt.Errorf("%s", config.Unknown("schema", name, SchemaNames()))
}

// gen builds one schema document: its shared definitions, and whether `${VAR}` is written in
// its values (a flow config) or not (a workspace file, which is never interpolated).
type gen struct {
	vars bool
	defs *obj
}

func newGen(vars bool) *gen { return &gen{vars: vars, defs: newObj()} }

// def returns a reference to definition name, built once by build.
func (g *gen) def(name string, build func() *obj) *obj {
	if !g.defs.has(name) {
		g.defs.set(name, nil) // taken before building, so a definition may refer to itself
		g.defs.set(name, build())
	}
	return newObj().set("$ref", "#/$defs/"+name)
}

// root makes a schema document of body, with its title and the definitions it uses.
func (g *gen) root(title, description string, body *obj) *obj {
	doc := newObj().set("$schema", draft).set("title", title).set("description", description)
	doc.merge(body)
	if len(g.defs.keys) > 0 {
		doc.set("$defs", g.defs)
	}
	return doc
}

// configSchema describes a flow config file: its sections, each connector, source and block by
// its type.
func configSchema() *obj {
	g := newGen(true)
	file := runtime.SettingsOf[config.FileKeys]()
	service := map[string]*obj{}
	if c, ok := runtime.ClusterProvider(); ok {
		service["cluster"] = g.object(c.Settings.Spec(), nil)
	}
	body := g.object(file, map[string]*obj{
		"service":    g.object(runtime.SettingsOf[config.ServiceKeys](), service),
		"env":        array(g.object(runtime.SettingsOf[config.EnvKeys](), map[string]*obj{"name": newObj().set("type", "string").set("pattern", envNamePattern)})),
		"resources":  g.object(runtime.SettingsOf[config.ResourcesKeys](), map[string]*obj{"templates": array(g.object(runtime.SettingsOf[config.TemplateKeys](), nil))}),
		"connectors": array(g.def("connector", g.connector)),
		"flows":      array(g.def("flow", g.flow)),
	})
	return g.root("octo flow config",
		"One file of an octo flow config (octo run --config): every section is optional, and the files of a folder together form one config. Reference: docs/reference in the octo repository, or octo blocks NAME.",
		body)
}

// fileSchema describes a config adapter's file.
func fileSchema(a runtime.AdapterSpec, f runtime.AdapterFile) *obj {
	g := newGen(false)
	return g.root("octo "+a.Type+" "+f.Pattern, f.Doc, g.object(f.Settings.Spec(), nil))
}

// connector describes a connectors item: its settings by its type.
func (g *gen) connector() *obj {
	s := g.object(runtime.SettingsOf[config.ConnectorKeys](), nil)
	var types []named
	var ifs []any
	for _, c := range runtime.ConnectorTypes() {
		types = append(types, named{c.Type, c.Summary})
		settings := g.def("connector."+c.Type, func() *obj { return g.component(c.Type+" connector settings", c.Summary, c.Doc, c.Settings()) })
		ifs = append(ifs, g.when(c.Type, withSettings(newObj(), settings, c.Settings())))
	}
	props(s).set("type", typeChoice(props(s).vals["type"].(*obj), types))
	return s.set("allOf", ifs)
}

// flow describes a flows item.
func (g *gen) flow() *obj {
	return g.object(runtime.SettingsOf[config.FlowKeys](), map[string]*obj{
		"source":  g.def("source", g.source),
		"process": g.def("process", g.process),
	})
}

// source describes a flow's source: its settings by the connector type written in it, or, with
// none written, settings any connector type takes.
func (g *gen) source() *obj {
	s := g.object(runtime.SettingsOf[config.SourceKeys](), nil)
	var types []named
	var ifs, all []any
	for _, c := range runtime.ConnectorTypes() {
		types = append(types, named{c.Type, c.Summary})
		settings := g.def("source."+c.Type, func() *obj {
			return g.component(c.Type+" source settings", "A flow's source on a "+c.Type+" connector.", "", c.Source.Spec())
		})
		ifs = append(ifs, g.when(c.Type, withSettings(newObj(), settings, c.Source.Spec())))
		all = append(all, settings)
	}
	props(s).set("type", typeChoice(props(s).vals["type"].(*obj), types))
	untyped := newObj().set("not", newObj().set("required", []string{"type"}))
	ifs = append(ifs, newObj().set("if", untyped).set("then",
		newObj().set("properties", newObj().set("settings", newObj().set("anyOf", all)))))
	return s.set("allOf", ifs)
}

// process describes a process list.
func (g *gen) process() *obj {
	return newObj().set("description", "The blocks each message passes through, in order.").
		set("type", "array").set("items", g.def("block", g.block))
}

// block describes a process list item: a block's settings by its type, under settings or, for a
// composite block, beside type and name.
func (g *gen) block() *obj {
	keys := runtime.SettingsOf[config.BlockKeys]()
	s := g.object(keys, nil).del("additionalProperties") // a composite block's keys are its settings
	var types []named
	var ifs []any
	for _, b := range runtime.BlockTypes() {
		types = append(types, named{b.Type, b.Summary})
		settings := g.def("block."+b.Type, func() *obj {
			if b.Composite {
				return g.composite(b)
			}
			return g.component(b.Type+" settings", b.Summary, b.Doc, b.Settings())
		})
		then := settings
		if !b.Composite {
			p := newObj().set("type", true).set("name", true)
			then = withSettings(p, settings, b.Settings()).set("additionalProperties", false)
		}
		ifs = append(ifs, g.when(b.Type, then))
	}
	props(s).set("type", typeChoice(props(s).vals["type"].(*obj), types))
	return s.set("allOf", ifs)
}

// composite describes a composite block: its keys beside type and name.
func (g *gen) composite(b runtime.BlockSpec) *obj {
	s := g.component(b.Type+" block", b.Summary, b.Doc, b.Settings())
	p := newObj().set("type", true).set("name", true).merge(props(s))
	return s.set("properties", p)
}

// component describes a component's settings, titled by what it is (editors name it so in
// their messages).
func (g *gen) component(title, summary, doc string, spec *runtime.SettingsSpec) *obj {
	s := newObj().set("title", title).set("description", strings.TrimSpace(summary+"\n\n"+doc))
	return s.merge(g.object(spec, nil))
}

// when applies then to an item whose type is typ.
func (g *gen) when(typ string, then *obj) *obj {
	cond := newObj().set("properties", newObj().set("type", newObj().set("const", typ))).set("required", []string{"type"})
	return newObj().set("if", cond).set("then", then)
}

// withSettings is a schema whose properties are p and a settings key of schema settings,
// required when spec has a required key (settings left out are decoded as none written).
func withSettings(p, settings *obj, spec *runtime.SettingsSpec) *obj {
	s := newObj().set("properties", p.set("settings", settings))
	for _, f := range spec.Fields {
		if f.Required {
			return s.set("required", []string{"settings"})
		}
	}
	return s
}

// named is a type and its summary.
type named struct{ typ, summary string }

// typeChoice is the schema of a type key: one of types, each with its summary for completion.
func typeChoice(base *obj, types []named) *obj {
	choices := make([]any, len(types))
	for i, t := range types {
		choices[i] = newObj().set("const", t.typ).set("description", t.summary)
	}
	return newObj().set("description", base.vals["description"]).set("anyOf", choices)
}

// object describes settings spec as a closed object; over replaces what a key's value is
// (keeping its description), for keys the spec holds as YAML nodes.
func (g *gen) object(spec *runtime.SettingsSpec, over map[string]*obj) *obj {
	p := newObj()
	var required []string
	for _, f := range spec.Fields {
		if v, ok := over[f.Key]; ok {
			p.set(f.Key, g.annotate(f, v))
		} else {
			p.set(f.Key, g.field(f))
		}
		if f.Required {
			required = append(required, f.Key)
		}
	}
	s := newObj().set("type", "object").set("properties", p)
	if required != nil {
		s.set("required", required)
	}
	return s.set("additionalProperties", false)
}

// field describes one setting.
func (g *gen) field(f *runtime.FieldSpec) *obj {
	return g.annotate(f, g.value(f))
}

// annotate adds f's description, default and example to v, the schema of its value.
func (g *gen) annotate(f *runtime.FieldSpec, v *obj) *obj {
	s := newObj()
	if doc := strings.TrimSpace(f.Doc + " " + kindNote(f.Kind)); doc != "" {
		s.set("description", doc)
	}
	s.merge(v)
	if f.Default != "" {
		s.set("default", tagValue(f, f.Default))
	}
	if f.Example != "" {
		s.set("examples", []any{tagValue(f, f.Example)})
	}
	return s
}

// scalar is what a text setting takes: the decoder reads any scalar as its text.
var scalar = []string{"string", "number", "boolean"}

// value describes how f's value is written.
func (g *gen) value(f *runtime.FieldSpec) *obj {
	s := newObj()
	switch f.Kind {
	case runtime.KindString:
		if len(f.Enum) > 0 {
			// The loader replaces a ${VAR} before the enum is checked, as for numbers.
			return g.variable(enum(f))
		}
		s.set("type", scalar)
		if f.Required {
			s.set("minLength", 1) // a required text must not be empty
		}
	case runtime.KindBool:
		return g.variable(s.set("type", "boolean"))
	case runtime.KindInt, runtime.KindNumber:
		s.set("type", string(f.Kind))
		bounds(s, f)
		return g.variable(s)
	case runtime.KindDuration:
		return g.variable(g.def("duration", func() *obj {
			return newObj().set("description", kindNote(runtime.KindDuration)).set("type", "string").set("pattern", durationPattern)
		}))
	case runtime.KindList:
		items := g.value(f.Elem)
		if len(f.Enum) > 0 {
			items = enum(f)
		}
		s.set("type", "array").set("items", items)
	case runtime.KindMap:
		s.set("type", "object").set("additionalProperties", g.value(f.Elem))
	case runtime.KindObject:
		return g.object(f.Object, nil)
	case runtime.KindOneOf:
		shapes := make([]any, len(f.OneOf))
		for i, shape := range f.OneOf {
			shapes[i] = g.value(shape)
		}
		s.set("anyOf", shapes)
	case runtime.KindExpression, runtime.KindTemplate, runtime.KindTemplateResource:
		s.set("type", scalar)
	case runtime.KindJSON:
		s.set("type", []string{"string", "object", "array"})
	case runtime.KindBranch:
		return g.def("process", g.process)
	case runtime.KindSettings:
		b := blockSpec(f.Block)
		return g.def("block."+b.Type, func() *obj { return g.component(b.Type+" settings", b.Summary, b.Doc, b.Settings()) })
	}
	return s
}

// variable lets a number or boolean be written as text holding a `${VAR}`, in a flow config.
func (g *gen) variable(s *obj) *obj {
	if !g.vars {
		return s
	}
	v := g.def("variable", func() *obj {
		return newObj().set("description", "Text holding a ${NAME} variable, replaced by its value before the setting is read.").
			set("type", "string").set("pattern", variablePattern)
	})
	return newObj().set("anyOf", []any{s, v})
}

// props returns schema s's properties.
func props(s *obj) *obj { return s.vals["properties"].(*obj) }

// array is a list of items.
func array(items *obj) *obj { return newObj().set("type", "array").set("items", items) }

// blockSpec returns the registered block type name; adapters name only registered ones.
func blockSpec(name string) runtime.BlockSpec {
	for _, b := range runtime.BlockTypes() {
		if b.Type == name {
			return b
		}
	}
	panic("reference: no block type " + name)
}

package config

import (
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// sectionNames are the top-level keys of a config file, in the order they are documented.
var sectionNames = keysOf[FileKeys]()

// keysOf lists the keys struct type S declares, in order.
func keysOf[S any]() []string {
	var keys []string
	for _, s := range SettingsOf(reflect.TypeFor[S]()) {
		keys = append(keys, s.Key)
	}
	return keys
}

// loader builds one Config from the sections of all its files.
type loader struct {
	cfg       *Config
	d         *decoder
	templates []Where // every template item, to label diagnostics
	parsed    Diags   // problems found resolving aliases and merge keys, labelled once items are known
	broken    bool    // a file could not be read or parsed whole: what it declares is unknown
}

// section is one top-level key of one file.
type section struct {
	key     string
	keyNode *yaml.Node
	val     *yaml.Node
	at      Where
}

// sections splits a file's root mapping into its sections, reporting unknown ones.
func (l *loader) sections(root *yaml.Node, at Where) []section {
	if root.Kind != yaml.MappingNode {
		l.d.addf(root, at, "expected a mapping of sections (%s), got %s", strings.Join(sectionNames, ", "), describe(root))
		return nil
	}
	var out []section
	for _, p := range l.d.pairs(root, at) {
		key := p.key.Value
		if !slices.Contains(sectionNames, key) {
			l.d.addf(p.key, at.Field(key), "%s", Unknown("section", key, sectionNames))
			continue
		}
		out = append(out, section{key: key, keyNode: p.key, val: p.val, at: at.Field(key)})
	}
	return out
}

// env declares the variables of every env section, so `${VAR}` in one file may use a variable
// declared in another.
func (l *loader) env(secs []section, lookup func(string) (string, bool)) *vars {
	vs := &vars{declared: map[string]EnvVar{}, lookup: lookup, done: map[*yaml.Node]Interpolation{}}
	for _, s := range secs {
		if s.key != "env" {
			continue
		}
		for i, item := range l.items(s.val, s.at) {
			w := s.at.Index(i).Label("env", peek(item, "name"))
			var raw EnvKeys
			l.decode(item, &raw, w)
			nameKey, nameVal := entry(item, "name")
			prev, dup := vs.declared[raw.Name]
			switch {
			case raw.Name == "":
				continue
			case !validEnvName(raw.Name):
				l.d.addf(nameVal, w.Field("name"), "invalid variable name %q (use letters, digits and _, not starting with a digit)", raw.Name)
				continue
			case dup:
				prevKey, _ := entry(prev.Node, "name")
				l.d.addf(nameKey, w.Field("name"), "duplicate variable name; first declared at %s", prev.At.pos(prevKey))
				continue
			}
			v := EnvVar{Name: raw.Name, Default: raw.Default, Description: raw.Description, At: w, Node: item}
			l.cfg.Env = append(l.cfg.Env, v)
			vs.declared[raw.Name] = v
			vs.names = append(vs.names, raw.Name)
		}
	}
	return vs
}

// parse builds the service, templates, connectors and flows, then checks references between them.
func (l *loader) parse(secs []section) {
	var service *section
	for i, s := range secs {
		switch s.key {
		case "service":
			if service != nil {
				l.d.addf(s.keyNode, s.at, "duplicate service section; first declared at %s", service.at.pos(service.keyNode))
				continue
			}
			service = &secs[i]
			l.service(s)
		case "resources":
			l.resources(s)
		case "connectors":
			l.connectors(s)
		}
	}
	for _, s := range secs {
		if s.key == "flows" {
			l.flows(s)
		}
	}
	l.checkSources()
}

func (l *loader) service(s section) {
	var raw ServiceKeys
	l.decode(s.val, &raw, s.at)
	l.cfg.Service = Service{Name: raw.Name, At: s.at, Node: s.val, Cluster: raw.Cluster, Tracing: raw.Tracing}
	if t := raw.Tracing; t != nil && t.Endpoint != "" {
		if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			_, tn := entry(s.val, "tracing")
			_, en := entry(tn, "endpoint")
			l.d.addf(en, s.at.Field("tracing").Field("endpoint"), "%q is not an OTLP/HTTP address: write the collector's http:// or https:// URL, such as http://127.0.0.1:4318", t.Endpoint)
		}
	}
}

func (l *loader) resources(s section) {
	var raw ResourcesKeys
	l.decode(s.val, &raw, s.at)
	at := s.at.Field("templates")
	for i, item := range l.items(raw.Templates, at) {
		w := at.Index(i).Label("template", peek(item, "as"))
		l.templates = append(l.templates, w)
		l.template(item, w)
	}
}

func (l *loader) template(item *yaml.Node, w Where) {
	var raw TemplateKeys
	l.decode(item, &raw, w)
	if raw.Resource == "" || raw.As == "" {
		return
	}
	asKey, _ := entry(item, "as")
	if prev := l.cfg.Templates[raw.As]; prev != nil {
		prevKey, _ := entry(prev.Node, "as")
		l.d.addf(asKey, w.Field("as"), "duplicate template alias; first declared at %s", prev.At.pos(prevKey))
		return
	}
	file := raw.Resource
	if !filepath.IsAbs(file) {
		file = filepath.Join(l.cfg.Dir, file)
	}
	_, resVal := entry(item, "resource")
	text, err := ReadFile(file)
	var notRegular *NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.d.addf(resVal, w.Field("resource"), "template file %q does not exist", file)
		return
	case errors.Is(err, ErrTooLarge), errors.As(err, &notRegular):
		l.d.addf(resVal, w.Field("resource"), "template file %q is %v", file, err)
		return
	case err != nil:
		l.d.addf(resVal, w.Field("resource"), "cannot read template file %q: %s", file, osMessage(err))
		return
	}
	l.cfg.Templates[raw.As] = &Template{Alias: raw.As, File: file, Text: string(text), At: w, Node: item}
}

func (l *loader) connectors(s section) {
	for i, item := range l.items(s.val, s.at) {
		w := s.at.Index(i).Label("connector", peek(item, "name"))
		var raw ConnectorKeys
		l.decode(item, &raw, w)
		c := &Connector{Name: raw.Name, Type: raw.Type, Settings: raw.Settings, At: w, Node: item}
		l.cfg.Connectors = append(l.cfg.Connectors, c)
		if raw.Name == "" {
			continue
		}
		nameKey, _ := entry(item, "name")
		for _, prev := range l.cfg.Connectors[:len(l.cfg.Connectors)-1] {
			if prev.Name == raw.Name {
				prevKey, _ := entry(prev.Node, "name")
				l.d.addf(nameKey, w.Field("name"), "duplicate connector name; first declared at %s", prev.At.pos(prevKey))
				break
			}
		}
	}
}

func (l *loader) flows(s section) {
	for i, item := range l.items(s.val, s.at) {
		w := s.at.Index(i).Label("flow", peek(item, "name"))
		var raw FlowKeys
		l.decode(item, &raw, w)
		f := &Flow{Name: raw.Name, At: w, Node: item}
		f.Source = l.source(raw.Source, w.Field("source"))
		f.Process = l.d.process(raw.Process, w.Field("process"))
		l.cfg.Flows = append(l.cfg.Flows, f)
		if raw.Name == "" {
			continue
		}
		nameKey, _ := entry(item, "name")
		for _, prev := range l.cfg.Flows[:len(l.cfg.Flows)-1] {
			if prev.Name == raw.Name {
				prevKey, _ := entry(prev.Node, "name")
				l.d.addf(nameKey, w.Field("name"), "duplicate flow name; first declared at %s", prev.At.pos(prevKey))
				break
			}
		}
	}
}

func (l *loader) source(n *yaml.Node, at Where) Source {
	if n == nil {
		return Source{At: at}
	}
	var raw SourceKeys
	l.decode(n, &raw, at)
	return Source{Connector: raw.Connector, Type: raw.Type, Settings: raw.Settings, At: at, Node: n}
}

// checkSources reports flow sources naming a connector that is not declared.
func (l *loader) checkSources() {
	var names []string
	for _, c := range l.cfg.Connectors {
		if c.Name != "" && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	for _, f := range l.cfg.Flows {
		src := f.Source
		if src.Connector == "" || slices.Contains(names, src.Connector) || l.broken {
			continue // with a file left out, the connector may be declared in it
		}
		_, val := entry(src.Node, "connector")
		msg := Unknown("connector", src.Connector, names)
		if len(names) == 0 {
			msg += "; no connectors are declared"
		}
		l.d.addf(val, src.At.Field("connector"), "%s", msg)
	}
}

// decode is Decode into out, collecting into the loader's diagnostics.
func (l *loader) decode(n *yaml.Node, out any, at Where) { l.d.decode(n, out, at) }

// items returns the entries of a list section; null is an empty list.
func (l *loader) items(n *yaml.Node, at Where) []*yaml.Node {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.d.typeErr(n, at, "a list")
		return nil
	}
	return n.Content
}

// entry returns the key and value nodes of key in mapping n, or nils.
func entry(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Kind == yaml.ScalarNode && n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// peek returns the scalar value of key in mapping n, for labelling an item before it is decoded.
func peek(n *yaml.Node, key string) string {
	if _, v := entry(n, key); v != nil && v.Kind == yaml.ScalarNode && !isNull(v) {
		return v.Value
	}
	return ""
}

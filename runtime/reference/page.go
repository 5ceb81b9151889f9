package reference

import (
	"fmt"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// generated ends every page: the pages are made, not written.
const generated = "\n---\n\nGenerated from the settings types by `make docs`; do not edit.\n"

// componentPage is the Markdown reference of a block or connector.
func componentPage(c component) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s `%s`\n\n%s.\n\n%s\n", title(c.kind), c.name, capitalize(c.summary), c.doc)
	for _, t := range c.tables {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", t.title, t.where)
		markdownRows(&b, t.rows)
	}
	fmt.Fprintf(&b, "\n## Example\n\n```yaml\n%s```\n\n`octo blocks %s` prints this page in a terminal.\n", c.example, c.name)
	b.WriteString(generated)
	return b.String()
}

// markdownRows writes a settings table.
func markdownRows(b *strings.Builder, rows []row) {
	if len(rows) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| Key | Type | Default | Required | Allowed | Description |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		doc := r.doc
		if r.example != "" {
			doc += " Example: " + code(r.example)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", code(r.key), cell(r.typ), codeOrEmpty(r.def), yes(r.required), cell(r.allowed), cell(doc))
	}
}

// configPage describes the sections of a flow config file.
func configPage() string {
	var b strings.Builder
	b.WriteString("# The flow config file\n\n`octo run --config DIR|FILE` reads a folder's `*.yaml` and `*.yml` files (or one file) as one config. ")
	b.WriteString("Each file holds some of these sections; `${NAME}` in a value is replaced by a variable declared under `env`.\n")
	docs := map[string]string{}
	for _, f := range runtime.SettingsOf[config.FileKeys]().Fields {
		docs[f.Key] = f.Doc
	}
	for _, s := range configSections() {
		doc := s.doc
		if d, ok := docs[strings.TrimSuffix(s.key, "[]")]; ok {
			doc = d + " " + doc
		}
		fmt.Fprintf(&b, "\n## `%s`\n\n%s\n\n", s.key, strings.TrimSpace(doc))
		markdownRows(&b, rows(s.spec))
	}
	b.WriteString(generated)
	return b.String()
}

// section is a part of the config file with the keys it takes.
type section struct {
	key, doc string
	spec     *runtime.SettingsSpec
}

// configSections are the parts of a config file, in the order the page shows them.
func configSections() []section {
	sections := []section{{"service", "", runtime.SettingsOf[config.ServiceKeys]()}}
	if c, ok := runtime.ClusterProvider(); ok {
		sections = append(sections, section{"service.cluster", "The " + c.Type + " cluster: " + c.Summary + ".", c.Settings.Spec()})
	}
	return append(sections, []section{
		{"env[]", "", runtime.SettingsOf[config.EnvKeys]()},
		{"resources", "", runtime.SettingsOf[config.ResourcesKeys]()},
		{"resources.templates[]", "", runtime.SettingsOf[config.TemplateKeys]()},
		{"connectors[]", "Each connector type's settings are on its page.", runtime.SettingsOf[config.ConnectorKeys]()},
		{"flows[]", "", runtime.SettingsOf[config.FlowKeys]()},
		{"flows[].source", "The settings a source takes are on its connector type's page.", runtime.SettingsOf[config.SourceKeys]()},
		{"flows[].process[]", "Every block takes these keys; its settings are on its page.", runtime.SettingsOf[config.BlockKeys]()},
	}...)
}

// adapterPage describes the files of a config adapter.
func adapterPage(a runtime.AdapterSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Config adapter `%s`\n\n%s.\n", a.Type, capitalize(a.Summary))
	for _, f := range a.Files {
		fmt.Fprintf(&b, "\n## `%s`\n\n%s Schema: [%s](%s) (`octo schema %s`).\n\n", f.Pattern, f.Doc, SchemaFile(f.Name), SchemaFile(f.Name), f.Name)
		markdownRows(&b, rows(f.Settings.Spec()))
		for _, field := range f.Settings.Spec().Fields {
			if field.Kind == runtime.KindSettings {
				fmt.Fprintf(&b, "\n`%s` takes the [%s](block-%s.md) block's settings.\n", field.Key, field.Block, field.Block)
			}
		}
	}
	b.WriteString(generated)
	return b.String()
}

// indexPage lists every page and schema.
func indexPage() string {
	var b strings.Builder
	b.WriteString("# octo reference\n\nWhat every file octo reads takes, key by key, made from the settings types the blocks, connectors and config adapters register.\n\n")
	b.WriteString("- [The flow config file](config.md): `service`, `env`, `resources`, `connectors`, `flows`\n")
	b.WriteString("\n## Blocks\n\n")
	for _, s := range runtime.BlockTypes() {
		fmt.Fprintf(&b, "- [`%s`](block-%s.md): %s\n", s.Type, s.Type, s.Summary)
	}
	b.WriteString("\n## Connectors\n\n")
	for _, s := range runtime.ConnectorTypes() {
		fmt.Fprintf(&b, "- [`%s`](connector-%s.md): %s\n", s.Type, s.Type, s.Summary)
	}
	b.WriteString("\n## Config adapters\n\n")
	for _, s := range runtime.AdapterTypes() {
		fmt.Fprintf(&b, "- [`%s`](adapter-%s.md): %s\n", s.Type, s.Type, s.Summary)
	}
	b.WriteString("\n## Schemas\n\nJSON Schemas (draft 2020-12) for editors: completion, descriptions on hover and problems as you type. `octo schema [NAME]` prints them.\n\n")
	for _, name := range SchemaNames() {
		fmt.Fprintf(&b, "- [%s](%s): %s\n", SchemaFile(name), SchemaFile(name), schemaUse(name))
	}
	b.WriteString("\nWith the YAML extension of VS Code (or any editor running yaml-language-server), a file names its schema on its first line:\n\n")
	b.WriteString("```yaml\n# yaml-language-server: $schema=octo.schema.json\n```\n\n")
	b.WriteString("The path is relative to the YAML file (a URL works too). `octo new` writes the schema beside the files it makes.\n")
	b.WriteString(generated)
	return b.String()
}

// schemaUse says which files a schema is for.
func schemaUse(name string) string {
	if name == ConfigSchema {
		return "a flow config file (`octo schema`)"
	}
	for _, a := range runtime.AdapterTypes() {
		for _, f := range a.Files {
			if f.Name == name {
				return fmt.Sprintf("`%s` of an %s (`octo schema %s`)", f.Pattern, a.Type, name)
			}
		}
	}
	return ""
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// capitalize starts a summary with a capital, as a page's first sentence.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return title(s)
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// code writes s as inline code, with enough backticks around it.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + cell(s) + pad + fence
}

func codeOrEmpty(s string) string {
	if s == "" {
		return ""
	}
	return code(s)
}

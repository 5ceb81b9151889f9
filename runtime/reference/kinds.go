// Package reference is what users read about the files they write, made from the settings specs
// that blocks, connectors and config adapters register: the JSON Schema of a flow config and of
// each adapter file (for editors: completion, hover docs, problems as you type), the Markdown
// pages of docs/reference, and the text `octo blocks NAME` prints. It reflects nothing itself:
// every key, kind, default, enum and bound comes from runtime.SettingsSpec, so the reference and
// the decoder cannot drift apart.
//
// It knows the config format's sections (config.FileKeys and friends) and how a connector,
// source or block picks its settings by `type`; it knows nothing of any block's meaning.
package reference

import (
	"strings"

	"github.com/octo-run/octo/runtime"
)

// typeName says how a setting is written, for the reference's type column.
func typeName(f *runtime.FieldSpec) string {
	switch f.Kind {
	case runtime.KindList:
		return "list of " + typeName(f.Elem)
	case runtime.KindMap:
		return "map of " + typeName(f.Elem)
	case runtime.KindOneOf:
		names := make([]string, len(f.OneOf))
		for i, s := range f.OneOf {
			names[i] = typeName(s)
		}
		return strings.Join(names, " or ")
	case runtime.KindTemplateResource:
		return "template resource"
	case runtime.KindBranch:
		return "process list"
	case runtime.KindSettings:
		return f.Block + " settings"
	case runtime.KindJSON:
		return "JSON"
	case runtime.KindAny:
		return "any"
	}
	return string(f.Kind)
}

// kindNote explains a kind whose written form is text with a meaning, for schema descriptions.
func kindNote(k runtime.Kind) string {
	switch k {
	case runtime.KindExpression:
		return "An expr-lang expression (https://expr-lang.org) over body, vars, headers and env."
	case runtime.KindTemplate:
		return "A template: text with {{ expression }} tags over body, vars, headers and env."
	case runtime.KindTemplateResource:
		return "The alias of a template resource (resources.templates[].as)."
	case runtime.KindJSON:
		return "JSON text, or YAML written as JSON."
	case runtime.KindDuration:
		return "A duration: 250ms, 5s, 1h30m."
	case runtime.KindBranch:
		return "A process list: blocks run in order."
	}
	return ""
}

// allowed says which values a setting takes besides its type: its enum or its bounds.
func allowed(f *runtime.FieldSpec) string {
	if len(f.Enum) > 0 {
		s := strings.Join(f.Enum, ", ")
		if f.EnumAnyCase {
			s += " (any case)"
		}
		return s
	}
	low := ""
	switch {
	case f.Min != "" && f.MinExclusive:
		low = "more than " + f.Min
	case f.Min != "":
		low = "at least " + f.Min
	}
	switch {
	case f.Min != "" && f.Max != "" && !f.MinExclusive:
		return f.Min + " to " + f.Max
	case low != "" && f.Max != "":
		return low + ", at most " + f.Max
	case f.Max != "":
		return "at most " + f.Max
	}
	return low
}

package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxProblems bounds how many problems an ArgumentError lists.
const maxProblems = 8

// describe turns the library's error tree into short sentences: one per
// failing leaf, with the argument named by its path ("address.city",
// "items[2]"). Alternatives (anyOf, oneOf) are summarised rather than expanded,
// because listing every branch's complaint would mislead.
func describe(root *jsonschema.ValidationError) []string {
	var out []string
	stack := []*jsonschema.ValidationError{root}
	for len(stack) > 0 {
		ve := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kw := keyword(ve.KeywordLocation)
		if len(ve.Causes) > 0 && kw != "anyOf" && kw != "oneOf" {
			for i := len(ve.Causes) - 1; i >= 0; i-- {
				stack = append(stack, ve.Causes[i])
			}
			continue
		}
		out = append(out, sentences(kw, ve)...)
	}
	out = slices.Compact(out)
	if len(out) > maxProblems {
		more := len(out) - maxProblems
		out = append(out[:maxProblems], "and "+strconv.Itoa(more)+" more")
	}
	if len(out) == 0 {
		out = []string{"arguments do not match the input schema"}
	}
	return out
}

// keyword returns the last keyword of a schema location, skipping the
// indexes and names some keywords append (dependentRequired/x/0).
func keyword(loc string) string {
	segs := strings.Split(loc, "/")
	if n := len(segs); n >= 3 {
		if _, err := strconv.Atoi(segs[n-1]); err == nil {
			if k := segs[n-3]; k == "dependentRequired" || k == "dependencies" {
				return k
			}
		}
	}
	return segs[len(segs)-1]
}

func sentences(kw string, ve *jsonschema.ValidationError) []string {
	path := argPath(ve.InstanceLocation)
	subject := "arguments"
	if path != "" {
		subject = "argument " + strconv.Quote(path)
	}
	if ve.Message == "not allowed" { // a false schema: the property may not exist
		return []string{"unexpected argument " + strconv.Quote(path)}
	}
	switch kw {
	case "required":
		return missing(path, quotedNames(ve.Message))
	case "dependentRequired", "dependencies":
		// "property 'a' is required, if 'b' property exists"
		if names := quotedNames(ve.Message); len(names) > 0 {
			return missing(path, names[:1])
		}
	case "additionalProperties", "unevaluatedProperties":
		var out []string
		for _, n := range quotedNames(ve.Message) {
			out = append(out, "unexpected argument "+strconv.Quote(join(path, n)))
		}
		return out
	case "type":
		return []string{subject + ": " + strings.Replace(ve.Message, ", but got ", ", got ", 1)}
	case "anyOf", "oneOf":
		if strings.HasPrefix(ve.Message, "valid against schemas") {
			return []string{subject + ": matches more than one of the allowed alternatives"}
		}
		return []string{subject + ": matches none of the allowed alternatives"}
	}
	return []string{subject + ": " + ve.Message}
}

func missing(path string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, "missing required argument "+strconv.Quote(join(path, n)))
	}
	return out
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// argPath turns a JSON pointer ("/address/lines/0") into "address.lines[0]".
func argPath(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(seg); err == nil && b.Len() > 0 {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// quotedNames extracts the single-quoted names in a library message such as
// "missing properties: 'a', 'b'". The library quotes with Go's %q rules but
// leaves double quotes bare and escapes single quotes, so each name is rebuilt
// as a Go literal and unquoted.
func quotedNames(msg string) []string {
	var names []string
	for i := 0; i < len(msg); i++ {
		if msg[i] != '\'' {
			continue
		}
		var lit strings.Builder
		lit.WriteByte('"')
		j := i + 1
		for ; j < len(msg) && msg[j] != '\''; j++ {
			switch c := msg[j]; {
			case c == '\\' && j+1 < len(msg) && msg[j+1] == '\'':
				lit.WriteByte('\'')
				j++
			case c == '\\' && j+1 < len(msg):
				lit.WriteString(msg[j : j+2])
				j++
			case c == '"':
				lit.WriteString(`\"`)
			default:
				lit.WriteByte(c)
			}
		}
		lit.WriteByte('"')
		if name, err := strconv.Unquote(lit.String()); err == nil {
			names = append(names, name)
		}
		i = j
	}
	return names
}

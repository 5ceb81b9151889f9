package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

// The x-mcp-header annotations of a tool's input schema (2026-07-28, SEP-2243): the arguments a
// client mirrors in Mcp-Param-* request headers, read and checked when the schema compiles.

// xMCPHeader is the schema keyword that marks a mirrored argument.
const xMCPHeader = "x-mcp-header"

// ParamHeader is one argument a tool mirrors in a header.
type ParamHeader struct {
	// Name follows HeaderParamPrefix in the header's name, as the schema spells it.
	Name string
	// Path are the property names from the schema root to the argument.
	Path []string
}

// ParamHeaders returns the arguments the schema marks with x-mcp-header; nil for none.
func (s *Schema) ParamHeaders() []ParamHeader {
	if s == nil {
		return nil
	}
	return s.headers
}

// paramHeaders reads a schema's x-mcp-header annotations and checks them as SEP-2243 asks:
// a non-empty HTTP token, unique regardless of case, on a string, integer or boolean property
// reached from the root through "properties" alone. Clients drop a tool whose annotations
// break these rules, so a server refuses to build it.
func paramHeaders(text []byte) ([]ParamHeader, error) {
	var root any
	if err := json.Unmarshal(text, &root); err != nil {
		return nil, err
	}
	w := headerWalk{seen: map[string]string{}}
	if err := w.schema(root, "", nil, true); err != nil {
		return nil, err
	}
	return w.out, nil
}

// headerWalk collects annotations; seen maps a lower-cased name to where it was first used.
type headerWalk struct {
	out  []ParamHeader
	seen map[string]string
}

// schema visits one schema node at JSON pointer ptr; reachable says whether the chain from the
// root to it is "properties" keys only, path the property names along that chain.
func (w *headerWalk) schema(node any, ptr string, path []string, reachable bool) error {
	obj, ok := node.(map[string]any)
	if !ok {
		if arr, ok := node.([]any); ok { // allOf, anyOf, prefixItems, ...
			for i, el := range arr {
				if err := w.schema(el, fmt.Sprintf("%s/%d", ptr, i), nil, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if v, ok := obj[xMCPHeader]; ok {
		if err := w.annotation(obj, v, ptr, path, reachable); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first problem reported does not change from run to run
	for _, k := range keys {
		switch k {
		case "const", "enum", "default", "examples", xMCPHeader: // values, not schemas
		case "properties":
			props, _ := obj[k].(map[string]any)
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				at := ptr + "/properties/" + pointerEscape(name)
				if err := w.schema(props[name], at, append(slices.Clip(path), name), reachable); err != nil {
					return err
				}
			}
		default:
			if err := w.schema(obj[k], ptr+"/"+pointerEscape(k), nil, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// annotation checks one x-mcp-header value found at ptr and keeps it.
func (w *headerWalk) annotation(obj map[string]any, v any, ptr string, path []string, reachable bool) error {
	at := ptr
	if at == "" {
		at = "/"
	}
	name, ok := v.(string)
	switch {
	case !ok:
		return fmt.Errorf("x-mcp-header at %s must be a string, got %s", at, jsonscan.Kind(mustJSON(v)))
	case !reachable || len(path) == 0:
		return fmt.Errorf("x-mcp-header %q at %s: only a property reached from the root through \"properties\" alone can be mirrored (not through items, $ref, $defs, allOf/anyOf/oneOf/not or if/then/else)", name, at)
	case !httpToken(name):
		return fmt.Errorf("x-mcp-header %q at %s must be a non-empty HTTP header name token (letters, digits and !#$%%&'*+-.^_`|~; no spaces, colons or control characters)", name, at)
	case !mirrorableType(obj["type"]):
		return fmt.Errorf("x-mcp-header %q at %s: the property's type must be \"string\", \"integer\" or \"boolean\" (one of them, not a list; number, object and array values cannot be mirrored)", name, at)
	}
	key := strings.ToLower(name)
	if first, dup := w.seen[key]; dup {
		return fmt.Errorf("x-mcp-header %q at %s repeats the one at %s (names are compared regardless of case)", name, at, first)
	}
	w.seen[key] = at
	w.out = append(w.out, ParamHeader{Name: name, Path: path})
	return nil
}

// mirrorableType reports whether a property's "type" is "string", "integer" or "boolean". A
// list of types is refused even with "null" beside one of them: clients (the Go SDK) read
// "type" as one name, and would drop the tool or send no header for it.
func mirrorableType(t any) bool {
	return t == "string" || t == "integer" || t == "boolean"
}

// httpToken reports whether s is an RFC 9110 token (1*tchar).
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// This file holds the x-mcp-header mechanism of 2026-07-28 (SEP-2243): a tool's input schema
// marks arguments with "x-mcp-header": "Name", a client mirrors their values in Mcp-Param-Name
// request headers so intermediaries can route on them, and the server checks each header
// against the arguments before the call runs, since the two disagreeing would let a proxy act
// on one value and the tool on another.

// HeaderParamPrefix begins the header an x-mcp-header argument is mirrored in.
const HeaderParamPrefix = "Mcp-Param-"

// xMCPHeader is the schema keyword that marks a mirrored argument.
const xMCPHeader = "x-mcp-header"

// base64 sentinel of a mirrored value that is not plain header text (Mcp-Name, Mcp-Param-*).
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// ParamHeader is one argument a tool mirrors in a header.
type ParamHeader struct {
	// Name follows HeaderParamPrefix in the header's name, as the schema spells it.
	Name string
	// Path are the property names from the schema root to the argument.
	Path []string
}

// ToolParamHeaders is implemented by a ToolProvider whose tools may mirror arguments in
// headers: a 2026-07-28 tools/call is checked against the tool's ParamHeaders before the
// provider sees it. The mock and the router implement it from their compiled input schemas.
type ToolParamHeaders interface {
	// ParamHeaders returns the arguments tool mirrors, nil for none or an unknown tool.
	ParamHeaders(tool string) []ParamHeader
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
		return fmt.Errorf("x-mcp-header at %s must be a string, got %s", at, jsonKind(mustJSON(v)))
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

// checkParamHeaders checks a 2026-07-28 tools/call's Mcp-Param headers against its arguments:
// each mirrored argument present (and not null) needs its header with the same value, and a
// header needs its argument. The first problem is the -32020 answer.
func (s *Server) checkParamHeaders(m *Message, h http.Header) *Error {
	tp, ok := s.Tools.(ToolParamHeaders)
	if !ok {
		return nil
	}
	raw, _ := member(m.Params, "name")
	name, _ := unquote(raw)
	params := tp.ParamHeaders(name)
	if len(params) == 0 {
		return nil
	}
	args, _ := member(m.Params, "arguments")
	for _, p := range params {
		if e := checkParamHeader(h, p, args); e != nil {
			return e
		}
	}
	return nil
}

func checkParamHeader(h http.Header, p ParamHeader, args []byte) *Error {
	key := HeaderParamPrefix + p.Name
	arg := "arguments." + strings.Join(p.Path, ".")
	val, inBody := argumentAt(args, p.Path)
	got, sent, e := headerText(h, key)
	switch {
	case e != nil:
		return e
	case !sent && inBody:
		return headerMismatch("missing the %s header that mirrors %s", key, arg)
	case !sent:
		return nil
	case !inBody:
		return headerMismatch("the %s header is set but %s is absent or null", key, arg)
	case !sameArgument(got, val):
		return headerMismatch("the %s header %q differs from %s %s", key, clip(got), arg, clip(string(val)))
	}
	return nil
}

// argumentAt returns the JSON value at path in args; false when absent or null.
func argumentAt(args []byte, path []string) ([]byte, bool) {
	v := args
	for _, k := range path {
		if len(v) == 0 || v[0] != '{' {
			return nil, false
		}
		var ok bool
		if v, ok = member(v, k); !ok {
			return nil, false
		}
	}
	return v, len(v) > 0
}

// sameArgument compares a header's decoded text with the JSON value it mirrors: a string as
// is, true and false by their lower-case names, a number numerically (42.0 is 42).
func sameArgument(header string, val []byte) bool {
	switch c := val[0]; {
	case c == '"':
		s, ok := unquote(val)
		return ok && s == header
	case c == 't' || c == 'f':
		return header == string(val)
	case c == '-' || c >= '0' && c <= '9':
		if header == "" || !(header[0] == '-' || header[0] >= '0' && header[0] <= '9') || !json.Valid([]byte(header)) {
			return false
		}
		var a, b json.Number
		if json.Unmarshal([]byte(header), &a) != nil || json.Unmarshal(val, &b) != nil {
			return false
		}
		if x, errX := a.Int64(); errX == nil { // exactly, beyond float64's 2^53 too
			if y, errY := b.Int64(); errY == nil {
				return x == y
			}
		}
		x, errX := a.Float64()
		y, errY := b.Float64()
		return errX == nil && errY == nil && x == y
	}
	return false // an object or array is never mirrored
}

// headerText returns a mirrored header's value (Mcp-Name, Mcp-Param-*): sent once, trimmed of
// spaces and tabs, only visible ASCII and spaces, and decoded when it is =?base64?…?=.
func headerText(h http.Header, key string) (text string, sent bool, e *Error) {
	vals := h.Values(key)
	switch len(vals) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, headerMismatch("the %s header is sent %d times", key, len(vals))
	}
	v := strings.Trim(vals[0], " \t")
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", true, headerMismatch("the %s header holds a byte (0x%02x) a header value cannot; a client sends such values as =?base64?…?=", key, c)
		}
	}
	inner, ok := strings.CutPrefix(v, base64Prefix)
	if !ok || !strings.HasSuffix(inner, base64Suffix) {
		return v, true, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSuffix(inner, base64Suffix))
	if err != nil {
		return "", true, headerMismatch("the %s header is not valid base64 (padded, standard alphabet) between =?base64? and ?=", key)
	}
	return string(b), true, nil
}

// RequestHeaders are the request headers an MCP client sends over HTTP besides Content-Type and
// Authorization, with the Mcp-Param headers of schemas' mirrored arguments: what a browser's
// CORS preflight must allow for a 2026-07-28 client to reach the server (runtime.HeaderReader).
func RequestHeaders(schemas ...*Schema) []string {
	out := []string{HeaderSessionID, HeaderProtocolVersion, "Last-Event-ID", HeaderMethod, HeaderName}
	for _, s := range schemas {
		for _, p := range s.ParamHeaders() {
			out = append(out, HeaderParamPrefix+p.Name)
		}
	}
	return out
}

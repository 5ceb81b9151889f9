package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/logsafe"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime/jsonv"
)

// This file holds the x-mcp-header mechanism of 2026-07-28 (SEP-2243): a tool's input schema
// marks arguments with "x-mcp-header": "Name", a client mirrors their values in Mcp-Param-Name
// request headers so intermediaries can route on them, and the server checks each header
// against the arguments before the call runs, since the two disagreeing would let a proxy act
// on one value and the tool on another.

// HeaderParamPrefix begins the header an x-mcp-header argument is mirrored in.
const HeaderParamPrefix = "Mcp-Param-"

// base64 sentinel of a mirrored value that is not plain header text (Mcp-Name, Mcp-Param-*).
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// ToolParamHeaders is implemented by a ToolProvider whose tools may mirror arguments in
// headers: a 2026-07-28 tools/call is checked against the tool's ParamHeaders before the
// provider sees it. The mock and the router implement it from their compiled input schemas.
type ToolParamHeaders interface {
	// ParamHeaders returns the arguments tool mirrors, nil for none or an unknown tool.
	ParamHeaders(tool string) []schema.ParamHeader
}

// checkParamHeaders checks a 2026-07-28 tools/call's Mcp-Param headers against its arguments:
// each mirrored argument present (and not null) needs its header with the same value, and a
// header needs its argument. The first problem is the -32020 answer.
func (s *Server) checkParamHeaders(m *jsonrpc.Message, h http.Header) *jsonrpc.Error {
	tp, ok := s.Tools.(ToolParamHeaders)
	if !ok {
		return nil
	}
	raw, _ := jsonscan.Member(m.Params, "name")
	name, _ := jsonscan.Unquote(raw)
	params := tp.ParamHeaders(name)
	if len(params) == 0 {
		return nil
	}
	args, _ := jsonscan.Member(m.Params, "arguments")
	for _, p := range params {
		if e := checkParamHeader(h, p, args); e != nil {
			return e
		}
	}
	return nil
}

func checkParamHeader(h http.Header, p schema.ParamHeader, args []byte) *jsonrpc.Error {
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
		return headerMismatch("the %s header %q differs from %s %s", key, logsafe.Clip(got), arg, logsafe.Clip(string(val)))
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
		if v, ok = jsonscan.Member(v, k); !ok {
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
		s, ok := jsonscan.Unquote(val)
		return ok && s == header
	case c == 't' || c == 'f':
		return header == string(val)
	case c == '-' || c >= '0' && c <= '9':
		if header == "" || !(header[0] == '-' || header[0] >= '0' && header[0] <= '9') || !jsonv.Valid([]byte(header)) {
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
func headerText(h http.Header, key string) (text string, sent bool, e *jsonrpc.Error) {
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
func RequestHeaders(schemas ...*schema.Schema) []string {
	out := []string{HeaderSessionID, HeaderProtocolVersion, "Last-Event-ID", HeaderMethod, HeaderName}
	for _, s := range schemas {
		for _, p := range s.ParamHeaders() {
			out = append(out, HeaderParamPrefix+p.Name)
		}
	}
	return out
}

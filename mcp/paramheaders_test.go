package mcp

import (
	"net/http"
	"testing"

	"github.com/octo-run/octo/mcp/schema"
)

// Whatever header value and arguments arrive, the check answers nil or a -32020, never panics.
func FuzzCheckParamHeader(f *testing.F) {
	f.Add("=?base64?SGVsbG8=?=", `{"region":"Hello"}`)
	f.Add(" 42.0 ", `{"region":42}`)
	f.Add("=?base64??=", `{"region":""}`)
	f.Add("true", `{"region":{"a":[1]}}`)
	f.Add("", `[`)
	p := schema.ParamHeader{Name: "Region", Path: []string{"region"}}
	f.Fuzz(func(t *testing.T, value, args string) {
		h := http.Header{"Mcp-Param-Region": {value}}
		if e := checkParamHeader(h, p, []byte(args)); e != nil && e.Code != CodeHeaderMismatch {
			t.Fatalf("code %d", e.Code)
		}
	})
}

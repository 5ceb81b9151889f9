package octotest

import (
	"testing"

	"github.com/octo-run/octo/runtime/config"
)

// A test file is read from users' folders: whatever it holds, reading it ends with cases or
// diagnostics, never a panic, and a diagnostic always names the file.
func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		"cases:\n  - name: a\n    request: { flow: greet, body: { name: Ada } }\n    expect: { status: 200 }\n",
		"cases:\n  - name: b\n    mcp: { tool: t, arguments: { x: [1, 2.5, null, true] } }\n    stubs: [ { urlPattern: '^x', delay: 1s } ]\n    expect: { paths: { a[0].b: 1 }, vars: { x: y } }\n",
		"cases: [ { name: c, request: { path: /x }, expect: { body: &a { k: *a } } } ]",
		"cases:\n  - name: d\n    expect: { paths: { 'a..b': 1 } }\n",
		"- not a mapping",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, ds := parseFile("t.yaml", data)
		for _, d := range ds {
			if d.File != "t.yaml" {
				t.Fatalf("a diagnostic without the file: %v", d)
			}
		}
		if len(ds) == 0 {
			for _, c := range cases {
				if c.Name == "" || (c.Request == nil) == (c.MCP == nil) {
					t.Fatalf("a case that does not say one thing to do passed: %+v", c.Case)
				}
			}
		}
		_ = config.Diags(ds).Error()
	})
}

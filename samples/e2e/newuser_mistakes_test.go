package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// newUserTool is the tool a new user writes first; each mistake below is one edit of it.
const newUserTool = `env:
  - { name: HTTP_PORT, default: "PORT" }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: get_city
            description: A city.
            inputSchema: { type: object, properties: { city: { type: string } } }
            process:
              - type: set-payload
                settings: { value: body.city }
`

// The twelve mistakes of the new-user trial each get the file, line and column, what is
// wrong, and how to put it right (the one meant, or what to write), from the built binary: a
// typo in a block type, an indentation, a missing variable, a typo in an expression, a bad
// schema type, a tool without a name, an unknown key, a value of the wrong type, an undeclared
// field in a template, a port another program holds, a bad URL and a tab.
func TestTheTwelveMistakesOfANewUserAreToldWhereWhatAndHow(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldPort := strconv.Itoa(held.Addr().(*net.TCPAddr).Port)
	free := strconv.Itoa(freePort(t))
	swap := func(from, to string) func(string) string {
		return func(s string) string { return strings.Replace(s, from, to, 1) }
	}
	cases := []struct {
		name           string
		edit           func(string) string
		run            bool   // octo run finds it (a port is only held when it starts)
		at, cause, fix string // at is line:col
	}{
		{"a typo in a block type", swap("type: set-payload", "type: set-paylod"), false,
			"15:17", `unknown block type "set-paylod"`, `did you mean "set-payload"?`},
		{"an indentation", swap("            description: A city.", "          description: A city."), false,
			"12:22", "did not find expected '-' indicator", "keys of one mapping, and the items of one list, line up"},
		{"a missing variable", func(s string) string {
			s = strings.Replace(s, "  - { name: HTTP_PORT", "  - { name: API_BASE }\n  - { name: HTTP_PORT", 1)
			return strings.Replace(s, "- type: set-payload\n                settings: { value: body.city }",
				"- type: http-request\n                settings: { url: \"${API_BASE}/cities/{{ pathEscape(body.city) }}\" }", 1)
		}, false, "17:34", `variable "API_BASE" is not set and has no default`, "set it in the environment"},
		{"a typo in an expression", swap("value: body.city", "value: boddy.city"), false,
			"16:36", "unknown name boddy", "did you mean body?"},
		{"a bad schema type", swap("city: { type: string }", "city: { type: strng }"), false,
			"13:70", `"strng" is not a type`, `did you mean "string"?`},
		{"a tool without a name", swap("          - name: get_city\n            description: A city.", "          - description: A city."), false,
			"11:13", `missing required key "name"`, `"name"`},
		{"an unknown key", swap("description: A city.", "descripton: A city."), false,
			"12:13", `unknown key "descripton"`, `did you mean "description"?`},
		{"a value of the wrong type", swap(`default: "`+free+`"`, `default: "eighty"`), false,
			"4:48", `expected an integer, got "eighty"`, "set HTTP_PORT to"},
		{"an undeclared field in a template", swap("value: body.city", "value: body.cty"), false,
			"16:41", `"cty" is not a property of the inputSchema`, `did you mean "city"?`},
		{"a port another program holds", swap(`default: "`+free+`"`, `default: "`+heldPort+`"`), true,
			"4:48", "port " + heldPort + " is in use by another program", "set HTTP_PORT to another port"},
		{"a bad URL", swap("- type: set-payload\n                settings: { value: body.city }",
			"- type: http-request\n                settings: { url: \"htp//api.example.com/{{ body.city }}\" }"), false,
			"16:34", "the url must start with http:// or https://", "http:// or https://"},
		{"a tab", swap("            description: A city.", "\t    description: A city."), false,
			"12:1", "found a tab character", "YAML indents with spaces, not tabs"},
	}
	good := strings.Replace(newUserTool, `default: "PORT"`, `default: "`+free+`"`, 1)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := c.edit(good)
			if text == good {
				t.Fatal("the edit left the config as it was")
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "octo.yaml")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var out string
			if c.run {
				_, out = runOctoEnv(t, nil, "run", dir)
			} else {
				var code int
				code, out, _ = validate(t, dir)
				if code != 1 {
					t.Fatalf("octo validate exit %d:\n%s", code, out)
				}
			}
			first, _, _ := strings.Cut(out, "\n")
			if i := strings.Index(first, file+":"); i >= 0 {
				first = first[i:]
			}
			if !strings.HasPrefix(first, file+":"+c.at+":") || !strings.Contains(first, c.cause) || !strings.Contains(first, c.fix) {
				t.Fatalf("the first problem is\n%s\nwant it at %s:%s saying %q and %q\n(all of it:\n%s)", first, file, c.at, c.cause, c.fix, out)
			}
			t.Logf("%s", strings.TrimPrefix(first, dir+string(filepath.Separator)))
		})
	}
}

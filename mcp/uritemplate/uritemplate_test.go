package uritemplate

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, tpl, want string
	}{
		{"an empty template is refused", "", "uri template is empty"},
		{"an empty expression is refused", "db://{}", `uri template "db://{}": expression at offset 5: empty expression "{}"`},
		{"an unclosed brace is refused at its offset", "db://{table", `uri template "db://{table": unclosed "{" at offset 5`},
		{"a stray closing brace is refused at its offset", "db://table}", `uri template "db://table}": unmatched "}" at offset 10`},
		{"a nested brace is refused", "db://{a{b}}", `uri template "db://{a{b}}": "{" inside the expression opened at offset 5`},
		{"reserved expansion is refused", "file://{+path}", `operator '+' in {+path} is not supported: only simple {name} expansion (level 1)`},
		{"fragment expansion is refused", "x://a{#frag}", `operator '#' in {#frag} is not supported`},
		{"query expansion is refused", "x://a{?q}", `operator '?' in {?q} is not supported`},
		{"path expansion is refused", "x://a{/p}", `operator '/' in {/p} is not supported`},
		{"a reserved operator is refused", "x://a{=p}", `operator '=' in {=p} is not supported`},
		{"explode is refused", "x://{list*}", `explode modifier "*" in {list*} is not supported`},
		{"a prefix modifier is refused", "x://{name:3}", `prefix modifier ":3" in {name:3} is not supported`},
		{"several variables in one expression are refused", "x://{a,b}", `{a,b} lists several variables; only one per expression is supported`},
		{"a name starting with a digit is refused", "x://{1st}", `invalid variable name "1st": must match [A-Za-z_][A-Za-z0-9_]*`},
		{"a name with a dash is refused", "x://{my-name}", `invalid variable name "my-name"`},
		{"a name with a space is refused", "x://{ a}", `invalid variable name " a"`},
		{"a percent-encoded name is refused", "x://{a%20b}", `invalid variable name "a%20b"`},
		{"adjacent variables are refused as ambiguous", "x://{a}{b}", `{a} and {b} at offset 7 are adjacent; without a literal between them the match is ambiguous`},
		{"a repeated variable is refused", "x://{a}/{a}", `variable "a" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.tpl)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%q) = %v, want %q", tt.tpl, err, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name, tpl, uri string
		want           map[string]string // nil: no match
	}{
		{"a single variable matches", "weather://{city}", "weather://Lisbon", map[string]string{"city": "Lisbon"}},
		{"values are percent-decoded", "weather://{city}", "weather://S%C3%A3o%20Paulo", map[string]string{"city": "São Paulo"}},
		{"lowercase escapes decode too", "weather://{city}", "weather://S%c3%a3o", map[string]string{"city": "São"}},
		{"an encoded slash decodes to a slash", "file:///{name}", "file:///a%2Fb", map[string]string{"name": "a/b"}},
		{"two variables split on the literal between them", "db://{table}/{id}", "db://users/42", map[string]string{"table": "users", "id": "42"}},
		{"a variable stops at the first occurrence of the next literal", "x://{a}-{b}", "x://1-2-3", map[string]string{"a": "1", "b": "2-3"}},
		{"a trailing literal must match exactly", "db://{table}/rows", "db://users/rows", map[string]string{"table": "users"}},
		{"a dot before the trailing literal is part of the value", "x://{name}.json", "x://a.b.json", map[string]string{"name": "a.b"}},
		{"the match is not greedy before a trailing literal", "x://{name}.json", "x://a.json.json", nil},
		{"a literal-only template matches itself", "docs://readme", "docs://readme", map[string]string{}},
		{"a literal-only template matches nothing else", "docs://readme", "docs://readme2", nil},
		{"a different scheme does not match", "weather://{city}", "climate://Lisbon", nil},
		{"a missing prefix does not match", "weather://{city}", "weather:/", nil},
		{"an empty value does not match", "weather://{city}", "weather://", nil},
		{"an empty value before a literal does not match", "db://{table}/{id}", "db:///42", nil},
		{"a missing literal does not match", "db://{table}/{id}", "db://users", nil},
		{"extra text after the trailing literal does not match", "db://{table}/rows", "db://users/rows/7", nil},
		{"a raw slash in the last value does not match", "file:///{name}", "file:///etc/passwd", nil},
		{"a raw question mark does not match", "x://{a}", "x://a?b", nil},
		{"a raw hash does not match", "x://{a}", "x://a#b", nil},
		{"a control character does not match", "x://{a}", "x://a\nb", nil},
		{"a truncated escape does not match", "x://{a}", "x://abc%2", nil},
		{"a non-hex escape does not match", "x://{a}", "x://%zz", nil},
		{"an escape of invalid UTF-8 does not match", "x://{a}", "x://%FF", nil},
		{"raw unicode is accepted as is", "x://{a}", "x://São", map[string]string{"a": "São"}},
		{"sub-delimiters are kept raw", "x://{a}", "x://a:b@c!$&'()*+,;=", map[string]string{"a": "a:b@c!$&'()*+,;="}},
		{"a leading variable matches", "{scheme}://host", "https://host", map[string]string{"scheme": "https"}},
		{"three variables match in order", "repo://{owner}/{name}/issues/{n}", "repo://octo/octo/issues/7",
			map[string]string{"owner": "octo", "name": "octo", "n": "7"}},
		{"underscored names work", "x://{_a1}/{B_2}", "x://p/q", map[string]string{"_a1": "p", "B_2": "q"}},
		{"a literal containing an escape matches exactly", "x://a%20b/{v}", "x://a%20b/c", map[string]string{"v": "c"}},
		{"a literal containing an escape does not match its decoding", "x://a%20b/{v}", "x://a b/c", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := Parse(tt.tpl)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tpl.Match(tt.uri)
			if ok != (tt.want != nil) || !maps.Equal(got, tt.want) {
				t.Fatalf("Match(%q) = %v, %v; want %v", tt.uri, got, ok, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, tpl string
		vars      map[string]string
		want      string
	}{
		{"unreserved characters stay", "db://{table}/{id}", map[string]string{"table": "a-b.c_d~", "id": "7"}, "db://a-b.c_d~/7"},
		{"everything else is percent-encoded", "weather://{city}", map[string]string{"city": "São Paulo/1"}, "weather://S%C3%A3o%20Paulo%2F1"},
		{"a missing variable expands to nothing", "x://{a}/z", nil, "x:///z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := Parse(tt.tpl)
			if err != nil {
				t.Fatal(err)
			}
			if got := tpl.Expand(tt.vars); got != tt.want {
				t.Fatalf("Expand = %q, want %q", got, tt.want)
			}
			if back, ok := tpl.Match(tt.want); tt.vars != nil && (!ok || !maps.Equal(back, tt.vars)) {
				t.Fatalf("Match(Expand) = %v, %v; want %v", back, ok, tt.vars)
			}
		})
	}
	t.Run("names come in template order", func(t *testing.T) {
		tpl, _ := Parse("x://{b}/{a}")
		if got := tpl.Names(); strings.Join(got, ",") != "b,a" {
			t.Fatalf("Names() = %v", got)
		}
	})
}

// FuzzTemplate parses any template and matches any URI against it: no
// panics, and every match obeys the rules Match documents.
func FuzzTemplate(f *testing.F) {
	seeds := [][2]string{
		{"weather://{city}", "weather://S%C3%A3o%20Paulo"},
		{"db://{table}/{id}", "db://users/42"},
		{"x://{a}-{b}", "x://1-2-3"},
		{"x://{a}.json", "x://a.b.json"},
		{"{a}", "%"}, {"x://{+a}", "x://a"}, {"}{", ""}, {"x://{a:3}", "x://abc"}, {"x://{a}{b}", "x://ab"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, uri string) {
		tpl, err := Parse(text)
		if err != nil {
			if msg := err.Error(); msg == "" || msg[0] < 'a' || msg[0] > 'z' {
				t.Fatalf("error %q is not a lowercase message", msg)
			}
			return
		}
		if again, err := Parse(tpl.String()); err != nil || again.String() != text {
			t.Fatalf("template %q does not parse again: %v", text, err)
		}
		vars, ok := tpl.Match(uri)
		if !ok {
			return
		}
		if len(vars) != len(tpl.Names()) {
			t.Fatalf("%q on %q gave %d values for %d names", text, uri, len(vars), len(tpl.Names()))
		}
		for name, v := range vars {
			if v == "" || !utf8.ValidString(v) {
				t.Fatalf("%q on %q gave %s=%q", text, uri, name, v)
			}
		}
		// Expanding what matched yields a URI that matches to the same values.
		if literalInValues(tpl, vars) {
			return
		}
		if again, ok := tpl.Match(tpl.Expand(vars)); !ok || !maps.Equal(again, vars) {
			t.Fatalf("%q: Expand(%v) = %q matches again as %v, %v", text, vars, tpl.Expand(vars), again, ok)
		}
	})
}

// literalInValues reports whether an expanded value runs into the literal
// that follows it, which legitimately changes where a re-match splits.
func literalInValues(t *Template, vars map[string]string) bool {
	for k, name := range t.names {
		enc, next := escapeValue(vars[name]), t.lits[k+1]
		if next != "" && strings.Index(enc+next, next) != len(enc) {
			return true
		}
	}
	return false
}

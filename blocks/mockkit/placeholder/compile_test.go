package placeholder

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

var testVars = map[string]string{"city": "Paris", "token": "s3cret", "api.host": "api.example.com", "base-url": "https://x.example"}

func TestCompileRejectsEveryBadTag(t *testing.T) {
	cases := []struct {
		name, text string
		want       string // the whole "line:col: message"
	}{
		{"an opening brace pair with no closing pair points at the opening", "abc {{ args.city", `1:5: "{{" has no closing "}}" (write \{{ for a literal {{)`},
		{"a tag left open before the next tag is reported at its own opening", "{{ args.city {{$uuid}}", `1:1: "{{" has no closing "}}" (write \{{ for a literal {{)`},
		{"an empty tag is an error", "x {{  }}", "1:3: empty tag"},
		{"a plain name with arguments is an error", "{{ args.city extra }}", `1:1: "args.city" takes no arguments: only $name tags do`},
		{"params with a trailing dot needs a name", "{{params.}}", `1:1: "params." needs a name after the dot`},
		{"an expression is not a tag", "{{ 1+2 }}", `1:1: "1+2" is not a tag: write args.NAME, params.NAME, a variable name or $name`},
		{"an args path with an empty part is an error", "{{args..zip}}", `1:1: "args..zip" has an empty path part`},
		{"an args path with a trailing dot is an error", "{{args.}}", `1:1: "args." has an empty path part`},
		{"a bare dollar needs a name", "{{$}}", `1:1: "$" needs a name, as in $uuid`},
		{"as without a name is an error", "{{$uuid as}}", `1:1: "as" needs a name after it, as in {{$uuid as order}}`},
		{"a reuse name must be a plain name", "{{$uuid as 1x}}", `1:1: "1x" is not a valid name to reuse: use letters, digits, _ and -, starting with a letter or _`},
		{"a reuse name cannot contain dots", "{{$uuid as a.b}}", `1:1: "a.b" is not a valid name to reuse: use letters, digits, _ and -, starting with a letter or _`},
		{"args is reserved as a reuse name", "{{$uuid as args}}", `1:1: "args" is reserved and cannot name a value`},
		{"an unknown dynamic name suggests the closest one", "{{$randomInts}}", `1:1: unknown dynamic variable "$randomInts" (did you mean "$randomInt")`},
		{"a dynamic name in the wrong case suggests the right one", "{{$randomint}}", `1:1: unknown dynamic variable "$randomint" (did you mean "$randomInt")`},
		{"a swapped pair of letters is still found", "{{$randomFristName}}", `1:1: unknown dynamic variable "$randomFristName" (did you mean "$randomFirstName")`},
		{"an unknown dynamic name far from any has no suggestion", "{{$zzzzzzzz}}", `1:1: unknown dynamic variable "$zzzzzzzz"`},
		{"a name without arguments refuses them", "{{$guid 3}}", "1:1: $guid takes no arguments, got 1"},
		{"randomInt refuses a single argument", "{{$randomInt 5}}", "1:1: $randomInt takes 2 arguments (min max) or none, got 1"},
		{"a count refuses two arguments", "{{$randomWords 1 2}}", "1:1: $randomWords takes 1 argument (count) or none, got 2"},
		{"a whole number argument refuses decimals", "{{$randomInt 1.5 3}}", `1:1: $randomInt: min "1.5" is not a whole number`},
		{"a whole number argument refuses words", "{{$randomAlphaNumeric ten}}", `1:1: $randomAlphaNumeric: length "ten" is not a whole number`},
		{"a whole number argument refuses exponents", "{{$randomInt 1e3 2e3}}", `1:1: $randomInt: min "1e3" is not a whole number`},
		{"a price refuses three decimals", "{{$randomPrice 1.005 2}}", `1:1: $randomPrice: min "1.005" is not a number with at most 2 decimals`},
		{"a price refuses NaN", "{{$randomPrice NaN 2}}", `1:1: $randomPrice: min "NaN" is not a number with at most 2 decimals`},
		{"a length of zero is out of range", "{{$randomAlphaNumeric 0}}", "1:1: $randomAlphaNumeric: length 0 is out of range 1..1000"},
		{"a count above the cap is out of range", "{{$randomLoremParagraphs 1001}}", "1:1: $randomLoremParagraphs: count 1001 is out of range 1..1000"},
		{"randomInt beyond exact JSON integers is out of range", "{{$randomInt 0 9007199254740992}}", "1:1: $randomInt: max 9007199254740992 is out of range -9007199254740991..9007199254740991"},
		{"an image side above 4096 is out of range", "{{$randomImageUrl 5000 10}}", "1:1: $randomImageUrl: width 5000 is out of range 1..4096"},
		{"a negative price is out of range", "{{$randomPrice -1 2}}", "1:1: $randomPrice: min -1 is out of range 0..1000000000"},
		{"min above max is an error", "{{$randomInt 10 1}}", "1:1: $randomInt: min 10 is greater than max 1"},
		{"a reuse name defined twice points at the first", "{{$uuid as a}}\n{{$guid as a}}", `2:1: "a" is already defined at 1:1`},
		{"a reuse name cannot hide a variable", "{{$uuid as city}}", `1:1: "city" is already a variable: pick another name for this value`},
		{"an unknown variable suggests a close variable", "{{citty}}", `1:1: unknown variable "citty" (did you mean "city")`},
		{"an unknown variable suggests a close dotted variable", "{{api.hots}}", `1:1: unknown variable "api.hots" (did you mean "api.host")`},
		{"a misspelt args suggests args with the same path", "{{arg.city}}", `1:1: unknown variable "arg.city" (did you mean "args.city")`},
		{"a misspelt params suggests params", "{{param.id}}", `1:1: unknown variable "param.id" (did you mean "params.id")`},
		{"a lone unknown name reminds how arguments are written", "{{country}}", `1:1: unknown variable "country" (for a tool argument write {{args.country}})`},
		{"an unknown dotted name far from everything has no hint", "{{foo.bar}}", `1:1: unknown variable "foo.bar"`},
		{"the column counts characters, not bytes, on the tag's own line", "héllo\n  wörld {{nope.x}}", `2:9: unknown variable "nope.x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.text, testVars)
			if err == nil {
				t.Fatalf("Compile(%q) succeeded, want error %q", tc.text, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("Compile(%q) error\n got %q\nwant %q", tc.text, err.Error(), tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if e.Tag == "" || !strings.HasPrefix(tc.text[e.Offset:], "{{") {
				t.Fatalf("error offset %d does not point at a tag's {{ (tag %q)", e.Offset, e.Tag)
			}
		})
	}
}

func TestCompileReportsAllErrorsInTextOrder(t *testing.T) {
	text := "{{citty}} ok {{$nope}}\n{{$randomInt 3 1}} {{ unclosed"
	_, err := Compile(text, testVars)
	if err == nil {
		t.Fatal("Compile succeeded, want four errors")
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %T does not join several errors", err)
	}
	var got []string
	for _, e := range joined.Unwrap() {
		var te *Error
		if !errors.As(e, &te) {
			t.Fatalf("joined error %T is not an *Error", e)
		}
		got = append(got, strings.Join([]string{itoa(te.Line), itoa(te.Column), itoa(te.Offset)}, ":"))
	}
	want := []string{"1:1:0", "1:14:13", "2:1:23", "2:20:42"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("positions %v, want %v", got, want)
	}
}

func TestABrokenDrawingTagIsReportedOnce(t *testing.T) {
	_, err := Compile("{{order}} {{$randomInt 9 1 as order}} {{order}}", nil)
	want := "1:11: $randomInt: min 9 is greater than max 1"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want only %q", err, want)
	}
}

func TestErrorTagIsShortenedWhenLong(t *testing.T) {
	_, err := Compile("{{ "+strings.Repeat("x", 500), nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if len(e.Tag) > maxTagShown+len("…") {
		t.Fatalf("Tag is %d bytes, want at most %d", len(e.Tag), maxTagShown+len("…"))
	}
}

func TestStaticAndRefs(t *testing.T) {
	cases := []struct {
		name, text string
		static     bool
		refs       string
	}{
		{"plain text is static", "hello", true, ""},
		{"empty text is static", "", true, ""},
		{"a text with only variables is static once they are filled in", "{{ city }} via {{api.host}}", true, ""},
		{"an escaped tag is static", `\{{args.city}}`, true, ""},
		{"an argument makes it dynamic and is listed by its first part", "{{args.address.zip}}", false, "args:address@1:1"},
		{"all arguments are listed with an empty name", "x {{args}}", false, "args:@1:3"},
		{"a URI part is listed whole, dots included", "{{params.user.id}}", false, "params:user.id@1:1"},
		{"a dynamic value makes it dynamic without a ref", "{{$uuid}}", false, ""},
		{"refs keep text order", "{{params.id}}\n{{args.q}}", false, "params:id@1:1 args:q@2:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Compile(tc.text, testVars)
			if err != nil {
				t.Fatal(err)
			}
			if tp.Static() != tc.static {
				t.Errorf("Static() = %v, want %v", tp.Static(), tc.static)
			}
			var refs []string
			for _, r := range tp.Refs() {
				refs = append(refs, r.Source+":"+r.Name+"@"+itoa(r.Pos.Line)+":"+itoa(r.Pos.Column))
			}
			if got := strings.Join(refs, " "); got != tc.refs {
				t.Errorf("Refs() = %q, want %q", got, tc.refs)
			}
		})
	}
}

func TestEscapesAndBraces(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"a backslash makes the braces literal", `a \{{args.city}} b`, `a {{args.city}} b`},
		{"a pair of backslashes stays and the tag is filled", `a \\{{args.city}}`, `a \\Lyon`},
		{"three backslashes keep two and make the braces literal", `\\\{{x}}`, `\\{{x}}`},
		{"a backslash elsewhere is literal", `C:\dir {{args.city}}`, `C:\dir Lyon`},
		{"closing braces alone are literal", `}} and } {`, `}} and } {`},
		{"a run of braces opens the tag at its last pair", `x{{{args.city}}}`, `x{Lyon}`},
		{"a single brace is literal", `{args.city}`, `{args.city}`},
		{"whitespace and newlines inside the braces are free", "{{\n\t args.city \n}}", `Lyon`},
		{"an escape at the start keeps plain text mode", `\{{ "a": {{args.n}} }}`, `{{ "a": 5 }}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Compile(tc.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := tp.Render(Input{Args: map[string]any{"city": "Lyon", "n": 5.0}}, NewRand(1, nil))
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

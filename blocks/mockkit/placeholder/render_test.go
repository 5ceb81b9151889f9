package placeholder

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

func testArgs() map[string]any {
	return map[string]any{
		"city":    "Paris",
		"count":   3.0,
		"ratio":   0.25,
		"ok":      true,
		"nothing": nil,
		"address": map[string]any{"zip": "75001", "lines": []any{"1 rue A", "Bât. B"}},
		"tags":    []any{"a", 2.0},
		"quote":   `say "hi"` + "\n<&>",
		"big":     1e21,
	}
}

func render(t *testing.T, text string, in Input) string {
	t.Helper()
	tp, err := Compile(text, testVars)
	if err != nil {
		t.Fatalf("Compile(%q): %v", text, err)
	}
	return tp.Render(in, NewRand(42, fixedClock))
}

func TestRenderPlainText(t *testing.T) {
	in := Input{Args: testArgs(), Params: map[string]string{"id": "A-100", "user.id": "u7"}}
	cases := []struct {
		name, text, want string
	}{
		{"a string argument is written as is", "Weather in {{args.city}}", "Weather in Paris"},
		{"spaces inside the braces are allowed", "{{ args.city }}", "Paris"},
		{"a whole number is written as JSON", "{{args.count}}", "3"},
		{"a fraction is written as JSON", "{{args.ratio}}", "0.25"},
		{"a huge number uses the exponent form", "{{args.big}}", "1e+21"},
		{"a boolean is written as JSON", "{{args.ok}}", "true"},
		{"a null argument is written as null", "{{args.nothing}}", "null"},
		{"an object is written as JSON with sorted keys", "{{args.address}}", `{"lines":["1 rue A","Bât. B"],"zip":"75001"}`},
		{"an array is written as JSON", "{{args.tags}}", `["a",2]`},
		{"a dotted path goes deeper", "{{args.address.zip}}", "75001"},
		{"a number in a path indexes an array", "{{args.address.lines.1}}", "Bât. B"},
		{"an index past the end writes nothing", "<{{args.address.lines.9}}>", "<>"},
		{"a path through a string writes nothing", "<{{args.city.x}}>", "<>"},
		{"a missing argument writes nothing", "<{{args.missing}}>", "<>"},
		{"text is not HTML-escaped", "{{args.quote}}", "say \"hi\"\n<&>"},
		{"all arguments are one JSON object", "{{args}}", `{"address":{"lines":["1 rue A","Bât. B"],"zip":"75001"},"big":1e+21,"city":"Paris","count":3,"nothing":null,"ok":true,"quote":"say \"hi\"\n<&>","ratio":0.25,"tags":["a",2]}`},
		{"a URI part is written as is", "item {{params.id}}", "item A-100"},
		{"a URI part name keeps its dots", "{{params.user.id}}", "u7"},
		{"a missing URI part writes nothing", "<{{params.nope}}>", "<>"},
		{"all URI parts are one JSON object", "{{params}}", `{"id":"A-100","user.id":"u7"}`},
		{"a variable is filled in", "{{city}} @ {{api.host}} {{base-url}}", "Paris @ api.example.com https://x.example"},
		{"a text starting with a tag is plain text", "{{args.city}} {\"a\": 1}", `Paris {"a": 1}`},
		{"a text starting with a word is plain text even with JSON inside", `Result: {"city": "{{args.quote}}"}`, "Result: {\"city\": \"say \"hi\"\n<&>\"}"},
		{"a text that opens with a quote and goes on is plain text", `"Hi," said {{args.quote}}`, "\"Hi,\" said say \"hi\"\n<&>"},
		{"a tag after a closed quote leaves it plain text", `"at" {{args.quote}}`, "\"at\" say \"hi\"\n<&>"},
		{"an unclosed quote is plain text", `"{{args.quote}}`, "\"say \"hi\"\n<&>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.text, in); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRenderWithoutArguments(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"all arguments of a call without any are an empty object", "{{args}}", "{}"},
		{"all URI parts of a read without any are an empty object", "{{params}}", "{}"},
		{"one argument of a call without any writes nothing", "<{{args.a.b}}>", "<>"},
		{"a JSON value with no arguments is null", `{"a": {{args.a}}}`, `{"a": null}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.text, Input{}); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClientValuesAreNeverScannedForTags(t *testing.T) {
	cases := []struct {
		name, text string
		in         Input
		want       string
	}{
		{"an argument holding a variable tag comes back literally", "{{args.q}}",
			Input{Args: map[string]any{"q": "{{token}}"}}, "{{token}}"},
		{"an argument holding a dynamic tag comes back literally", "{{args.q}}",
			Input{Args: map[string]any{"q": "{{$uuid}} {{args.q}}"}}, "{{$uuid}} {{args.q}}"},
		{"a nested argument holding a tag comes back literally", "{{args.o}}",
			Input{Args: map[string]any{"o": map[string]any{"k": "{{token}}"}}}, `{"k":"{{token}}"}`},
		{"a URI part holding a tag comes back literally", "{{params.id}}",
			Input{Params: map[string]string{"id": "{{token}}"}}, "{{token}}"},
		{"a tag inside a JSON answer comes back escaped but literal", `{"q": "{{args.q}}"}`,
			Input{Args: map[string]any{"q": `{{token}}"`}}, `{"q": "{{token}}\""}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.text, tc.in)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if strings.Contains(got, testVars["token"]) {
				t.Fatalf("answer %q leaks the variable's value", got)
			}
		})
	}
	t.Run("a variable's value is not scanned for tags either", func(t *testing.T) {
		tp, err := Compile("{{v}}", map[string]string{"v": "{{args.q}} {{$nope}}"})
		if err != nil {
			t.Fatal(err)
		}
		got := tp.Render(Input{Args: map[string]any{"q": "x"}}, nil)
		if got != "{{args.q}} {{$nope}}" {
			t.Fatalf("got %q", got)
		}
	})
}

func TestRenderJSONContexts(t *testing.T) {
	in := Input{Args: testArgs(), Params: map[string]string{"id": `A"1`}}
	vars := map[string]string{"port": "8080", "name": `Bob "B"`, "conf": `{"a":[1,2]}`, "flag": "true"}
	cases := []struct {
		name, text, want string
	}{
		{"a string inside a string literal is escaped", `{"q": "<{{args.quote}}>"}`, `{"q": "<say \"hi\"\n<&>>"}`},
		{"a string as a JSON value is quoted", `{"q": {{args.quote}}}`, `{"q": "say \"hi\"\n<&>"}`},
		{"a number as a JSON value stays a number", `{"n": {{args.count}}}`, `{"n": 3}`},
		{"a number inside a string literal is its JSON text", `{"n": "#{{args.count}}"}`, `{"n": "#3"}`},
		{"an object as a JSON value stays an object", `{"o": {{args.address}}}`, `{"o": {"lines":["1 rue A","Bât. B"],"zip":"75001"}}`},
		{"an object inside a string literal is escaped JSON text", `{"o": "{{args.tags}}"}`, `{"o": "[\"a\",2]"}`},
		{"a missing argument as a JSON value is null", `{"m": {{args.missing}}}`, `{"m": null}`},
		{"a missing argument inside a string literal is empty", `{"m": "{{args.missing}}"}`, `{"m": ""}`},
		{"a null argument as a JSON value is null", `{"m": {{args.nothing}}}`, `{"m": null}`},
		{"a key built from an argument is escaped", `{"{{args.quote}}": 1}`, `{"say \"hi\"\n<&>": 1}`},
		{"an escaped quote in the template keeps the string open", `{"q": "a\"{{args.quote}}"}`, `{"q": "a\"say \"hi\"\n<&>"}`},
		{"an escaped backslash in the template closes nothing", `{"q": "a\\{{args.city}}"}`, `{"q": "a\\Paris"}`},
		{"an array template is JSON too", `  [{{args.city}}, "{{args.city}}"]`, `  ["Paris", "Paris"]`},
		{"a template that is one string literal is JSON too", ` "<{{args.quote}}>{{name}}"` + "\n", ` "<say \"hi\"\n<&>>Bob \"B\""` + "\n"},
		{"a string literal with an escaped quote is JSON too", `"a\"{{args.quote}}\""`, `"a\"say \"hi\"\n<&>\""`},
		{"a URI part is escaped in a string literal", `{"id": "{{params.id}}"}`, `{"id": "A\"1"}`},
		{"a URI part is quoted as a JSON value", `{"id": {{params.id}}}`, `{"id": "A\"1"}`},
		{"all arguments as a JSON value are an object", `{"args": {{args}}}`, `{"args": {"address":{"lines":["1 rue A","Bât. B"],"zip":"75001"},"big":1e+21,"city":"Paris","count":3,"nothing":null,"ok":true,"quote":"say \"hi\"\n<&>","ratio":0.25,"tags":["a",2]}}`},
		{"a variable that is JSON is written raw as a JSON value", `{"port": {{port}}, "conf": {{conf}}, "flag": {{flag}}}`, `{"port": 8080, "conf": {"a":[1,2]}, "flag": true}`},
		{"a variable that is not JSON is quoted as a JSON value", `{"name": {{name}}}`, `{"name": "Bob \"B\""}`},
		{"a variable inside a string literal is escaped", `{"greeting": "hi {{name}}"}`, `{"greeting": "hi Bob \"B\""}`},
		{"a dynamic number stays a number", `{"n": {{$randomInt 7 7}}, "p": {{$randomPrice 2.5 2.5}}}`, `{"n": 7, "p": 2.50}`},
		{"a dynamic text is quoted as a JSON value", `{"t": {{$isoTimestamp}}}`, `{"t": "2025-01-02T03:04:05.000Z"}`},
		{"a dynamic time stamp is a number", `{"t": {{$timestamp}}}`, `{"t": 1735787045}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Compile(tc.text, vars)
			if err != nil {
				t.Fatal(err)
			}
			got := tp.Render(in, NewRand(7, fixedClock))
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("answer is not valid JSON: %s", got)
			}
		})
	}
}

func TestDynamicBooleanIsBareAsAJSONValue(t *testing.T) {
	var got []any
	out := render(t, `[{{$randomBoolean as b}}, "{{b}}"]`, Input{})
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	b, isBool := got[0].(bool)
	if !isBool || got[1] != strconv.FormatBool(b) {
		t.Fatalf("got %s, want a bare boolean then the same as a string", out)
	}
}

func TestJSONAnswersSurviveHostileStrings(t *testing.T) {
	hostile := []string{`"`, `\`, `"}, "admin": true, "x": {"`, "\x00\x1f\x7f", "line\nbreak\r\t", "\u2028\u2029",
		"bad \xff\xfe utf8", `\u0022`, "{{token}}", "</script>"}
	tp, err := Compile(`{"a": "{{args.s}}", "b": {{args.s}}, "k": {"{{args.s}}": [{{args.s}}]}}`, testVars)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hostile {
		t.Run("the answer stays JSON and round-trips "+strconvQuote(s), func(t *testing.T) {
			got := tp.Render(Input{Args: map[string]any{"s": s}}, nil)
			var v map[string]any
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Fatalf("invalid JSON %q: %v", got, err)
			}
			want := perByteReplacement(s)
			if v["a"] != want || v["b"] != want {
				t.Fatalf("decoded %q / %q, want %q", v["a"], v["b"], want)
			}
			if len(v) != 3 {
				t.Fatalf("the value injected keys: %v", v)
			}
		})
	}
}

// perByteReplacement is what a JSON encoder makes of invalid UTF-8: one U+FFFD per bad byte.
func perByteReplacement(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // ranging yields U+FFFD once per invalid byte
	}
	return b.String()
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestEachOccurrenceDrawsFresh(t *testing.T) {
	got := strings.Fields(render(t, "{{$uuid}} {{$uuid}} {{$guid}}", Input{}))
	if len(got) != 3 || got[0] == got[1] || got[1] == got[2] || got[0] == got[2] {
		t.Fatalf("want three different ids, got %q", got)
	}
}

func TestReuseOneDrawByName(t *testing.T) {
	cases := []struct {
		name, text string
		json       bool
	}{
		{"a name repeats the drawn value after it", "{{$uuid as order}} {{order}} {{ order }}", false},
		{"a name may be used before the tag that draws it", "{{order}} {{$uuid as order}} {{order}}", false},
		{"arguments come before the name", "{{$randomInt 1 1000000 as n}} {{n}} {{n}}", false},
		{"JSON answers repeat the value in every context", `{"a": "{{$randomAlphaNumeric 20 as k}}", "b": {{k}}, "c": "x{{k}}x"}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.text, Input{})
			var vals []string
			if tc.json {
				var m map[string]string
				if err := json.Unmarshal([]byte(got), &m); err != nil {
					t.Fatalf("%s: %v", got, err)
				}
				vals = []string{m["a"], m["b"], strings.Trim(m["c"], "x")}
			} else {
				vals = strings.Fields(got)
			}
			for _, v := range vals[1:] {
				if v != vals[0] || v == "" {
					t.Fatalf("values %q differ; want one draw", vals)
				}
			}
		})
	}
	t.Run("each render draws the named value again", func(t *testing.T) {
		tp, _ := Compile("{{$uuid as id}}", nil)
		r := NewRand(1, nil)
		if a, b := tp.Render(Input{}, r), tp.Render(Input{}, r); a == b {
			t.Fatalf("two renders gave the same id %q", a)
		}
	})
	t.Run("more names than fit on the stack still work", func(t *testing.T) {
		var b strings.Builder
		for i := range 12 {
			b.WriteString("{{$randomInt 0 1000000000 as n" + itoa(i) + "}}={{n" + itoa(i) + "}} ")
		}
		for _, pair := range strings.Fields(render(t, b.String(), Input{})) {
			l, r, _ := strings.Cut(pair, "=")
			if l != r {
				t.Fatalf("pair %q differs", pair)
			}
		}
	})
}

func TestSameSeedSameAnswers(t *testing.T) {
	var b strings.Builder
	for _, n := range DynamicNames() {
		b.WriteString(n + "={{" + n + "}}\n")
	}
	tp, err := Compile(b.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	renderTwice := func(seed int64) [2]string {
		r := NewRand(seed, fixedClock)
		return [2]string{tp.Render(Input{}, r), tp.Render(Input{}, r)}
	}
	a, again, other := renderTwice(99), renderTwice(99), renderTwice(100)
	if a != again {
		t.Fatal("the same seed and clock gave different answers")
	}
	if a[0] == a[1] {
		t.Fatal("two renders in a row gave the same answer")
	}
	if a == other {
		t.Fatal("different seeds gave the same answers")
	}
	if r0 := renderTwice(0); r0 != renderTwice(0) {
		t.Fatal("seed 0 is not reproducible")
	}
}

func TestNilRandUsesTheDefaultGenerator(t *testing.T) {
	tp, _ := Compile("{{$randomInt 5 5}}-{{$isoTimestamp}}", nil)
	got := tp.Render(Input{}, nil)
	ts, ok := strings.CutPrefix(got, "5-")
	if !ok {
		t.Fatalf("got %q", got)
	}
	when, err := time.Parse(time.RFC3339, ts)
	if err != nil || math.Abs(time.Since(when).Seconds()) > 60 {
		t.Fatalf("time stamp %q is not now: %v", ts, err)
	}
}

func TestConcurrentRendersShareOneRand(t *testing.T) {
	tp, _ := Compile(`{"id": "{{$uuid as id}}", "again": "{{id}}", "n": {{$randomInt}}, "who": "{{args.who}}"}`, nil)
	r := NewRand(3, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for range 200 {
				who := strings.Repeat("x", g)
				var v map[string]any
				out := tp.Render(Input{Args: map[string]any{"who": who}}, r)
				if err := json.Unmarshal([]byte(out), &v); err != nil || v["id"] != v["again"] || v["who"] != who {
					errs <- out
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("bad concurrent answer %s", e)
	}
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	values := []any{nil, true, false, "", "plain", "é\u2028", 0.0, -0.5, 1e-7, 123456789.0, 1e21, 1.5e300,
		[]any{}, map[string]any{}, []any{1.0, "a", nil, []any{map[string]any{"z": 1.0, "a": "b"}}},
		json.Number("12.5"), 7, int64(-3), []string{"x"}, struct{ A int }{1}, map[string]string{"b": "1", "a": "2"}}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := appendJSON(nil, v)
		var gv, wv any
		if json.Unmarshal(got, &gv) != nil || json.Unmarshal(want, &wv) != nil || !reflect.DeepEqual(gv, wv) {
			t.Errorf("appendJSON(%#v) = %s, encoding/json says %s", v, got, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), make(chan int), json.Number("x")} {
		if got := string(appendJSON(nil, v)); got != "null" {
			t.Errorf("appendJSON(%v) = %s, want null", v, got)
		}
	}
	deep := map[string]any{}
	deep["self"] = deep
	if out := appendJSON(nil, deep); !json.Valid(out) {
		t.Errorf("a cyclic map gave invalid JSON")
	}
}

func TestSizeIsTheLengthOfTheRenderedAnswer(t *testing.T) {
	in := Input{Args: testArgs(), Params: map[string]string{"id": "A-\"100\"\u2028", "user.id": "u7"}}
	in.Args["odd"] = "tab\t nul\x00 bad\xff sep\u2029 é"
	for _, text := range []string{
		"static text",
		"Weather in {{args.city}} ({{args.count}}, {{args.address}}) {{args.missing}}",
		`{"city": "{{args.city}}", "quote": "{{args.quote}}", "odd": "{{args.odd}}", "all": {{args}}, "n": {{args.count}}, "m": {{args.missing}}}`,
		`{"id": "{{params.id}}", "p": {{params}}, "q": {{params.user.id}}, "none": {{params.nope}}}`,
		"{{args.odd}}{{params.id}}{{params}}",
	} {
		t.Run(text, func(t *testing.T) {
			tp, err := Compile(text, testVars)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tp.Size(in), len(tp.Render(in, NewRand(1, fixedClock))); got != want {
				t.Fatalf("Size = %d, Render wrote %d bytes", got, want)
			}
		})
	}
}

// Literal text renders as itself, tags and all.
func TestLiteralRendersAsItself(t *testing.T) {
	for _, text := range []string{`plain`, `{"a": "{{args.x}}"}`, `{{{{`, `{"s": "\\{{x}}"}`, `a{b}c {{$uuid}}`} {
		tpl, err := Compile(Literal(text), nil)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := tpl.Render(Input{}, nil); got != text {
			t.Fatalf("%q rendered %q", text, got)
		}
	}
}

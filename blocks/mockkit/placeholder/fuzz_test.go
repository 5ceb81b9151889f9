package placeholder

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzCompileRender feeds arbitrary templates and client strings. Nothing may panic,
// errors must point inside the text, and a JSON template that renders to valid JSON
// with a harmless argument must stay valid JSON with the fuzzed one.
func FuzzCompileRender(f *testing.F) {
	seeds := []string{
		``, `plain`, `{{args.s}}`, `{"a": "{{args.s}}", "b": {{args.s}}}`, `[{{args.o}}, "{{args.o}}"]`,
		`{"id": "{{params.id}}", "all": {{params}}, "args": {{args}}}`, `{"h": {{host}}, "p": {{port}}, "q": "{{host}}"}`,
		`{"n": {{$randomInt 1 10 as n}}, "m": "{{n}}", "u": "{{$uuid}}"}`, `\{{args.s}} \\{{args.s}}`, `{{{args.s}}}`,
		`{"k": "a\"{{args.s}}\\"}`, `{{ $randomLoremLines 3 }}`, `{{`, `{{ args.s {{ x }}`, `}}{{}}`, `{{$nope}}`,
		`{"x": "{{$randomImageDataUri 2 2}}", "d": {{$randomDateFuture}}, "b": {{$randomBoolean}}}`,
		"h\u00e9 {{ citty }}\n{{$randomInt 9 1}}", `{"s": "{{args.o.k.0}}"}`,
	}
	args := []string{`x`, `"`, `\`, `"}, "admin": true, "`, "\xff\x00\n", `{"k":["v"]}`, `12.5`, `{{host}}`}
	for i, s := range seeds {
		f.Add(s, args[i%len(args)], int64(i))
	}
	f.Add(`"0000000000{{args.o}}"`, "\x00@_", int64(0)) // a quoted answer once wrote the NUL raw
	f.Add("{{args.o.0}}1", `["a"]`, int64(0))           // text that renders as JSON only by chance
	vars := map[string]string{"host": `a"b`, "port": "8080"}
	f.Fuzz(func(t *testing.T, text, arg string, seed int64) {
		tp, err := Compile(text, vars)
		if err != nil {
			checkErrorPositions(t, text, err)
			return
		}
		benign := tp.Render(inputFor("x"), NewRand(seed, fixedClock))
		fuzzed := tp.Render(inputFor(arg), NewRand(seed, fixedClock))
		if tp.Static() && benign != fuzzed {
			t.Fatalf("a static template rendered %q and %q", benign, fuzzed)
		}
		// Only a JSON template promises to stay JSON: plain text that happens to render
		// as JSON ("{{args.o.0}}1" gives 1) is written as it is, whatever the client sent.
		if isJSON(tp) && json.Valid([]byte(benign)) && !json.Valid([]byte(fuzzed)) {
			t.Fatalf("template %q gave valid JSON %q with a plain argument but %q with %q", text, benign, fuzzed, arg)
		}
	})
}

// isJSON reports whether Compile read the template as JSON: then its tags have a JSON context.
func isJSON(tp *Template) bool {
	for _, s := range tp.segs {
		if s.ctx != ctxText {
			return true
		}
	}
	return false
}

func inputFor(arg string) Input {
	in := Input{Args: map[string]any{"s": arg}, Params: map[string]string{"id": arg}}
	var v any
	if json.Unmarshal([]byte(arg), &v) == nil {
		in.Args["o"] = v
	} else {
		in.Args["o"] = arg
	}
	return in
}

func checkErrorPositions(t *testing.T, text string, err error) {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var te *Error
		if !errors.As(e, &te) {
			t.Fatalf("error %T (%v) is not an *Error", e, e)
		}
		if te.Offset < 0 || te.Offset+2 > len(text) || text[te.Offset:te.Offset+2] != "{{" || te.Line < 1 || te.Column < 1 {
			t.Fatalf("error %v has a position %+v that is not a tag in %q", te, te.Pos, text)
		}
	}
}

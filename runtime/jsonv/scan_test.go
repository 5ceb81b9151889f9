package jsonv

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

var scanSeeds = []string{
	``, ` `, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e10`, `2.`, `1.e3`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `True`, `"a"`, `"`, `"\"`, `"\\"`, `"\u00e9"`, `"\u00g9"`, `"\u12"`,
	`"\x"`, `"a` + "\x01" + `"`, `"a` + "\x7f\xff\xfe" + `"`, `"é"`, `"\/\b\f\n\r\t"`,
	`{}`, `[]`, `{ }`, `[ ]`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":[1,2,{"b":null}]}`,
	`[1,2]`, `[1,,2]`, `[,1]`, `[1 2]`, `[1,]`, `[`, `]`, `{`, `}`, `[[[]]]`, `[[[]]`, ` {"a" : [ true , false ] } `,
	"\t\r\n[1]\n", `1 2`, `{}{}`, `{"a":1}x`, `"a"b`, `{"":""}`, `[-]`, `[-01]`, `[0.0e0]`, `{"a":{"b":{"c":[[[{}]]]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`,
}

// check compares Scan with json.Valid, and its depth with a count of the brackets.
func check(t *testing.T, in string) {
	t.Helper()
	depth, ok := Scan([]byte(in))
	if want := json.Valid([]byte(in)); ok != want {
		t.Fatalf("Scan(%q) = %v, json.Valid says %v", in, ok, want)
	}
	if ok {
		if want := nesting(in); depth != want {
			t.Fatalf("Scan(%q) depth %d, want %d", in, depth, want)
		}
	}
}

// nesting is the deepest nesting of brackets outside strings in valid JSON.
func nesting(in string) int {
	deepest, level, inString, escaped := 0, 0, false, false
	for _, c := range []byte(in) {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			level++
			deepest = max(deepest, level)
		case c == '}' || c == ']':
			level--
		}
	}
	return deepest
}

func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range scanSeeds {
		check(t, in)
	}
	// Mutations of the seeds: bytes changed, dropped, doubled or put in from JSON's alphabet.
	alphabet := []byte(`{}[],:"\ -+.eE0123456789tfnulrsabu` + "\x00\x1f\x7f\xc3\xa9")
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		b := []byte(scanSeeds[r.IntN(len(scanSeeds))])
		for range 1 + r.IntN(3) {
			if len(b) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))])
				continue
			}
			at := r.IntN(len(b))
			switch r.IntN(4) {
			case 0:
				b[at] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = append(b[:at], b[at+1:]...)
			case 2:
				b = append(b[:at], append([]byte{b[at]}, b[at:]...)...)
			default:
				b = append(b[:at], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[at:]...)...)
			}
		}
		check(t, string(b))
	}
}

func TestScanStopsWhereEncodingJSONDoes(t *testing.T) {
	for _, n := range []int{MaxScanDepth, MaxScanDepth + 1} {
		in := strings.Repeat("[", n) + strings.Repeat("]", n)
		depth, ok := Scan([]byte(in))
		if want := json.Valid([]byte(in)); ok != want {
			t.Fatalf("%d levels: Scan %v, json.Valid %v", n, ok, want)
		}
		if ok && depth != n {
			t.Fatalf("%d levels read as %d", n, depth)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		depth, ok := Scan(b)
		if want := json.Valid(b); ok != want {
			t.Fatalf("Scan(%q) = %v, json.Valid says %v", b, ok, want)
		}
		if ok && depth != nesting(string(b)) {
			t.Fatalf("Scan(%q) depth %d, want %d", b, depth, nesting(string(b)))
		}
	})
}

var scanBody = []byte(scanSeeds[len(scanSeeds)-1])

func BenchmarkScan(b *testing.B) {
	for b.Loop() {
		Scan(scanBody)
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	for b.Loop() {
		json.Valid(scanBody)
	}
}

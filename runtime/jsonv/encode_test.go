package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// values Append must write exactly as encoding/json does.
var encodeCases = []any{nil, true, false, "", "plain", "é\u2028\u2029 <b>&amp;</b> \b\f\t\n\r\x00\x1f \"q\" \\ bad\xff", 0.0, -0.5,
	1e-7, 123456789.0, 1e21, 1.5e300, 5e-324, -0.0, 100.0, 1e20,
	[]any{}, map[string]any{}, []any{1.0, "a", nil, []any{map[string]any{"z": 1.0, "a": "b", "m": []any{true}}}},
	map[string]any{"only": "<one>"}, json.Number("12.5"), json.Number("-0"), json.Number("1e+5"), json.Number("9007199254740993"),
	7, int64(-3), map[string]string{"b": "1", "a": "<2>"}, []string{"x"}, struct {
		A int
		B string `json:"b"`
	}{1, "<x>"}, map[string]any{"k\u2028<": map[string]any{}}}

func TestAppendWritesWhatEncodingJSONWrites(t *testing.T) {
	for _, html := range []bool{true, false} {
		for _, v := range encodeCases {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got, err := Append([]byte("prefix:"), v, html)
			if err != nil || string(got) != "prefix:"+strings.TrimSuffix(want.String(), "\n") {
				t.Errorf("Append(%#v, html %v) = %s, %v; encoding/json says %s", v, html, got, err, want.Bytes())
			}
		}
	}
}

func TestAppendMatchesMarshalOnDecodedValues(t *testing.T) {
	for _, text := range []string{`{"city":"Lisbon","summary":"Sunny, 24C"}`, `[1,2.5,-3e-9,1e400000000,"x"]`,
		`{"big":123456789012345678901234567890,"n":{"deep":[{"a":null}]}}`} {
		v, err := Decode([]byte(text))
		if err != nil {
			continue // the refused number: nothing to encode
		}
		want, _ := json.Marshal(v)
		got, err := Append(nil, v, true)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Append(Decode(%s)) = %s, %v; json.Marshal says %s", text, got, err, want)
		}
	}
}

func TestAppendRefusesWhatJSONCannotHold(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for _, v := range []any{math.NaN(), math.Inf(1), []any{1.0, math.Inf(-1)}, json.Number("x"), json.Number("01"),
		json.Number("1."), json.Number(" 1"), cyclic} {
		if _, err := Append(nil, v, true); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Append(%v) = %v, want ErrUnsupported", v, err)
		}
	}
	if _, err := Append(nil, make(chan int), true); err == nil {
		t.Error("a channel was encoded")
	}
}

func TestAppendAllocatesNothingForASmallObject(t *testing.T) {
	v := map[string]any{"city": "Lisbon", "summary": "Sunny", "days": []any{1, 2.5}}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { _, _ = Append(buf[:0], v, true) }); n > 0 {
		t.Fatalf("%v allocations", n)
	}
}

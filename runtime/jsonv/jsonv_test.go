package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// reference decodes as encoding/json does with UseNumber, then applies the
// number rule: what Decode must give.
func reference(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.Trim(data[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, errors.New("data after the value")
	}
	return ruled(v), nil
}

func ruled(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
		if strings.ContainsAny(string(v), ".eE") {
			f, _ := v.Float64()
			return f
		}
	case map[string]any:
		for k, e := range v {
			v[k] = ruled(e)
		}
	case []any:
		for i, e := range v {
			v[i] = ruled(e)
		}
	}
	return v
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"an object with every kind of value", `{"s":"x","n":9007199254740993,"f":-1.5e3,"t":true,"no":false,"z":null,"a":[1,{"b":[]}],"o":{}}`},
		{"escaped keys and strings are unescaped", `{"a\"b":"line\nbreak \u00e9","\u0041":"\ud83d\ude00"}`},
		{"a later duplicate key wins", `{"k":1,"k":2}`},
		{"space around values is skipped", " \t[ 1 , \"two\" ,{ } , { \"a\" : [ ] } ]\n"},
		{"UTF-8 text is kept", `"héllo wörld"`},
		{"invalid UTF-8 becomes U+FFFD", "\"\xff\""},
		{"a bare integer past int64 stays exact", `12345678901234567890`},
		{"a bare decimal is a float64", `-0.5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := reference([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode([]byte(tt.in))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, %v\nwant %#v", got, err, want)
			}
		})
	}
}

func TestDecodeKeepsNumbersExact(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"42", 42},
		{"-0", 0},
		{"9007199254740993", 9007199254740993},
		{"-9223372036854775808", -9223372036854775808},
		{"9223372036854775808", json.Number("9223372036854775808")},
		{"12345678901234567890", json.Number("12345678901234567890")},
		{"1" + strings.Repeat("0", 308), json.Number("1" + strings.Repeat("0", 308))},
		{"0.1", 0.1},
		{"1e3", 1000.0},
		{"1E-3", 0.001},
		{"1.0", 1.0},
		// Below float64's smallest value: 0, as JavaScript reads it.
		{"1e-999999", 0.0},
		{"0." + strings.Repeat("0", 996) + "1", 1e-997},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("Decode(%.40s) = %#v (%T), %v; want %#v (%T)", tt.in, got, got, err, tt.want, tt.want)
		}
	}
}

func TestDecodeRefusesNumbersNoConsumerShouldWorkOn(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a number past float64's range", `{"n":1e400}`, "number 1e400 is out of range"},
		{"a negative one", `[-1e400]`, "number -1e400 is out of range"},
		{"an integer of 310 digits", "1" + strings.Repeat("0", 309),
			"number 1" + strings.Repeat("0", 31) + "… is out of range"},
		{"a million-digit integer, before its range is worked out", strings.Repeat("9", 1_000_000),
			"number " + strings.Repeat("9", 32) + "… is longer than 1000 characters"},
		{"a decimal float64 holds but written in 1,001 characters", "0." + strings.Repeat("0", 998) + "1",
			"number 0." + strings.Repeat("0", 30) + "… is longer than 1000 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Decode([]byte(tt.in))
			var ne *NumberError
			if !errors.As(err, &ne) || err.Error() != tt.want {
				t.Fatalf("got %#v, %v; want a *NumberError %q", v, err, tt.want)
			}
		})
	}
}

func TestDecodeGivesEncodingJSONsErrors(t *testing.T) {
	for _, in := range []string{"", "{", `{"a":}`, "[1,]", "1 2", `{"a" 1}`, "\"\x01\""} {
		var want any
		werr := json.Unmarshal([]byte(in), &want)
		if v, err := Decode([]byte(in)); err == nil || err.Error() != werr.Error() {
			t.Errorf("Decode(%q) = %#v, %v; want %v", in, v, err, werr)
		}
	}
	t.Run("nesting deeper than encoding/json allows", func(t *testing.T) {
		deep := strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)
		if _, err := Decode([]byte(deep)); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
			t.Fatalf("got %v, want the depth error", err)
		}
	})
}

// A large string is copied once: the decoder neither buffers its input nor
// grows anything while it reads.
func TestDecodeCopiesALargeStringOnce(t *testing.T) {
	const size = 8 << 20
	data := []byte(`{"s":"` + strings.Repeat("a", size) + `"}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := Decode(data)
	runtime.ReadMemStats(&after)
	if err != nil || len(v.(map[string]any)["s"].(string)) != size {
		t.Fatalf("got %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/8 {
		t.Fatalf("decoding an %d-byte string allocated %d bytes", size, got)
	}
}

// The common small object costs no more than encoding/json.
func TestDecodeAllocatesNoMoreThanEncodingJSON(t *testing.T) {
	data := []byte(`{"city":"Lisbon","days":3,"units":{"temp":"C"},"tags":["a","b"]}`)
	ours := testing.AllocsPerRun(100, func() { _, _ = Decode(data) })
	theirs := testing.AllocsPerRun(100, func() {
		var v any
		_ = json.Unmarshal(data, &v)
	})
	if ours > theirs {
		t.Fatalf("Decode allocates %.0f times, encoding/json %.0f", ours, theirs)
	}
}

// FuzzDecode holds Decode to encoding/json: the same inputs are refused and
// the same values come out, except numbers the rule refuses.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\u00e9\\"`, `[]`, `{"":{}}`, "\"\xff\xfe\"",
		`{"n":9007199254740993}`, `[1,2.5,-0,1e3,"x\"1"]`, `12345678901234567890`, `1e400`, `{"a":`, `{} x`, ` 7 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := reference(data)
		got, err := Decode(data)
		var ne *NumberError
		if werr == nil && errors.As(err, &ne) {
			return // encoding/json has no range or length rule
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("Decode(%q) error %v, encoding/json %v", data, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, want %#v", data, got, want)
		}
	})
}

// BenchmarkDecodeDeepValueHoldingALargeString is the shape that made the
// previous decoder rescan a value once per level: 5,000 nested arrays around
// a 1 MiB string.
func BenchmarkDecodeDeepValueHoldingALargeString(b *testing.B) {
	data := []byte(strings.Repeat("[", 5000) + strconv.Quote(strings.Repeat("x", 1<<20)) + strings.Repeat("]", 5000))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// decodeReference is what DecodeValue replaces: a json.Decoder keeping
// numbers exact.
func decodeReference(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.Trim(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

func TestDecodeValueMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"an object with every kind of value", `{"s":"x","n":9007199254740993,"f":-1.5e3,"t":true,"no":false,"z":null,"a":[1,{"b":[]}],"o":{}}`},
		{"escaped keys and strings are unescaped", `{"a\"b":"line\nbreak \u00e9","\u0041":"\ud83d\ude00"}`},
		{"a later duplicate key wins", `{"k":1,"k":2}`},
		{"space around values is skipped", " \t[ 1 , \"two\" ,{ } ]\n"},
		{"invalid UTF-8 becomes U+FFFD", "\"\xff\""},
		{"a bare number stays exact", `12345678901234567890`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := decodeReference([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeValue([]byte(tt.in))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, %v\nwant %#v", got, err, want)
			}
		})
	}
	t.Run("invalid JSON is an error", func(t *testing.T) {
		for _, in := range []string{"", "{", `{"a":}`, "[1,]", "1 2"} {
			if v, err := DecodeValue([]byte(in)); err == nil {
				t.Errorf("DecodeValue(%q) = %#v, want an error", in, v)
			}
		}
	})
	t.Run("nesting deeper than encoding/json allows is an error", func(t *testing.T) {
		deep := strings.Repeat("[", maxValueDepth+1) + strings.Repeat("]", maxValueDepth+1)
		if _, err := DecodeValue([]byte(deep)); err == nil {
			t.Fatal("no error")
		}
	})
}

// FuzzDecodeValue checks DecodeValue against encoding/json on any input.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\u00e9\\"`, `[]`, `{"":{}}`, "\"\xff\xfe\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, werr := decodeReference(in)
		got, gerr := DecodeValue(in)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("DecodeValue(%q) error %v, encoding/json %v", in, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeValue(%q) = %#v, want %#v", in, got, want)
		}
	})
}

package logsafe

import (
	"encoding/json"
	"testing"
)

func TestLogSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "tools/call get_weather", "tools/call get_weather"},
		{"printable non-ASCII is kept", "São Paulo ☀", "São Paulo ☀"},
		{"newlines and tabs are escaped", "a\nb\r\tc", `a\nb\r\tc`},
		{"a terminal escape is escaped", "\x1b[31mred", `\x1b[31mred`},
		{"DEL and C1 controls are escaped", "a\x7fb\u009bc", `a\x7fb\u009bc`},
		{"line separators and bidi overrides are escaped", "a\u2028b\u202ec", `a\u2028b\u202ec`},
		{"bytes that are not UTF-8 are shown as hex", "a\xffb\xc0", `a\xffb\xc0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Fatalf("String(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLogJSONKeepsTheValueOnOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a clean message is kept", `{"a":"b"}`, `{"a":"b"}`},
		{"whitespace between tokens becomes spaces", "{\"a\":\n\t\"b\"\r\n}", `{"a":  "b"  }`},
		{"a raw line separator in a string is escaped", "{\"a\":\"x\u2028y\u009b\"}", `{"a":"x\u2028y\u009b"}`},
		{"a rune beyond the BMP that does not print becomes a surrogate pair", "{\"a\":\"\U000e0001\"}", `{"a":"\udb40\udc01"}`},
		{"bytes that are not UTF-8 become U+FFFD", "{\"a\":\"\xff\"}", `{"a":"\ufffd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(JSON([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("JSON(%q) = %q; want %q", tt.in, got, tt.want)
			}
			var before, after any
			if json.Unmarshal([]byte(tt.in), &before) != nil || json.Unmarshal([]byte(got), &after) != nil {
				t.Fatalf("not JSON any more: %q", got)
			}
			b1, _ := json.Marshal(before)
			b2, _ := json.Marshal(after)
			if string(b1) != string(b2) {
				t.Fatalf("the value changed: %s vs %s", b1, b2)
			}
		})
	}
}

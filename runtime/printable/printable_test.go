package printable_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/printable"
)

func TestWhatATerminalWouldActOnIsEscaped(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain text stays", "Weather mock", "Weather mock"},
		{"accents and symbols stay", "Météo ☀ 東京", "Météo ☀ 東京"},
		{"a carriage return", "get_workspace\rdelete_server", `get_workspace\rdelete_server`},
		{"a line feed", "a\nb", `a\nb`},
		{"an escape sequence", "\x1b[8mhidden\x1b[0m", `\x1b[8mhidden\x1b[0m`},
		{"a C1 control", "a\u009bb", `a\u009bb`},
		{"delete", "a\x7fb", `a\x7fb`},
		{"a bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"a zero-width joiner", "a\u200db", `a\u200db`},
		{"a no-break space", "a\u00a0b", `a\u00a0b`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"a backslash stays, so escaped text is not escaped twice", `a\x1bb`, `a\x1bb`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := printable.Escape(c.in); got != c.want {
				t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := printable.Safe(c.in); got != (c.in == c.want) {
				t.Errorf("Safe(%q) = %v", c.in, got)
			}
		})
	}
}

func TestQuoteBoundsAndEscapes(t *testing.T) {
	if got := printable.Quote("claude\x1b]0;x\x07"); got != `"claude\x1b]0;x\a"` {
		t.Errorf("Quote = %s", got)
	}
	long := strings.Repeat("é", printable.MaxRunes+10)
	got := printable.Quote(long)
	if want := `"` + strings.Repeat("é", printable.MaxRunes) + `"…`; got != want {
		t.Errorf("a long name is quoted as %s", got)
	}
}

func FuzzEscapeIsSafe(f *testing.F) {
	f.Add("a\x1b[2J\rb\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		if e := printable.Escape(s); !printable.Safe(e) {
			t.Fatalf("Escape(%q) = %q is not safe", s, e)
		}
		if q := printable.Quote(s); !printable.Safe(strings.TrimSuffix(q, "…")) {
			t.Fatalf("Quote(%q) = %q is not safe", s, q)
		}
	})
}

func TestEscapeTextKeepsLinesAndTabs(t *testing.T) {
	in := "a.yaml:1:1: bad\n\ttype: x\r\x1b[2J"
	if got, want := printable.EscapeText(in), "a.yaml:1:1: bad\n\ttype: x\\r\\x1b[2J"; got != want {
		t.Errorf("EscapeText = %q, want %q", got, want)
	}
}

func TestShellQuoteKeepsOneWord(t *testing.T) {
	for in, want := range map[string]string{
		"weather-tools": "weather-tools",
		"/tmp/a.b/c_d":  "/tmp/a.b/c_d",
		"My mock":       "'My mock'",
		"a;rm -rf ~":    "'a;rm -rf ~'",
		"it's":          `'it'\''s'`,
		"x*":            "'x*'",
		"":              "''",
		"$(id)":         "'$(id)'",
	} {
		if got := printable.ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

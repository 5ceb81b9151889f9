package stdiomsg

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzReadLine splits arbitrary input into lines: none may hold a newline or
// be longer than the limit, and the kept lines and refused ones together
// account for every newline.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"a\nb\r\nc", "", "\n\n", "0123456789abcdef\nshort\n", "no newline at all", "\r\r\n"} {
		f.Add([]byte(s), 8)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		lines := 0
		for {
			line, tooLong, err := ReadLine(r, max)
			if bytes.IndexByte(line, '\n') >= 0 || len(line) > max || tooLong && line != nil {
				t.Fatalf("line %q (tooLong %v) with max %d", line, tooLong, max)
			}
			if err != nil {
				break
			}
			lines++
		}
		if want := bytes.Count(data, []byte{'\n'}); lines != want {
			t.Fatalf("%d lines for %d newlines", lines, want)
		}
	})
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     []string // "!" marks a too-long line
	}{
		{"lines lose their LF or CRLF", "a\nb\r\nc\n", 10, []string{"a", "b", "c"}},
		{"the last line needs no newline", "a\nb", 10, []string{"a", "b"}},
		{"a line over the limit is skipped, the next is read", "0123456789AB\nok\n", 10, []string{"!", "ok"}},
		{"a line at the limit is kept", "0123456789\r\n", 10, []string{"0123456789"}},
		{"a line longer than the buffer is joined", strings.Repeat("z", 40) + "\n", 100, []string{strings.Repeat("z", 40)}},
		{"a lone CR stays inside a line", "a\rb\n", 10, []string{"a\rb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			for {
				data, tooLong, err := ReadLine(r, tt.max)
				switch {
				case tooLong:
					got = append(got, "!")
				case len(data) > 0 || err == nil:
					got = append(got, string(data))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

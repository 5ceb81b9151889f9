package stdio

import (
	"bufio"
	"bytes"
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
			line, tooLong, err := readLine(r, max)
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

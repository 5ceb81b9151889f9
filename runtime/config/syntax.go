package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// yaml.v3 reports a syntax error with a line and no column, and the line is not always where
// the mistake is: for an error inside a mapping, a list or brackets it is the line that opened
// them. The column is found by asking yaml.v3 again: the shortest start of the text that fails
// with the very same error ends at the character that made it fail. A start cut inside brackets
// would fail for being cut, so it is given the closing brackets it lacks first. Parsing is
// linear, and the search halves the text each time, so a file costs a few dozen parses of it at
// most (within maxSearchBytes; a larger file gets yaml.v3's line alone).

// maxSearchBytes bounds the text searched for the column of a syntax error: a parse of 256 KiB
// takes a few milliseconds, so the search stays well under a second (a 1 MiB file took seconds).
const maxSearchBytes = 256 << 10

var (
	yamlLineRe   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlAnchorRe = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// syntaxDiag turns a yaml.v3 syntax error in data, the text of file, into a diagnostic at the
// line and column of the mistake, with a hint for the common ones.
func syntaxDiag(file string, data []byte, err error) Diag {
	msg := yamlMessage(err)
	d := Diag{File: file, Msg: "invalid YAML: " + msg}
	reported := reportedLine(data, err)
	if m := yamlAnchorRe.FindStringSubmatch(err.Error()); m != nil {
		// No line at all: the alias is looked up in the text.
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			d.Line, d.Col = lineColAt(data, i)
		}
		return d
	}
	d.Line = reported
	if off, ok := culprit(data, err, reported); ok {
		d.Line, d.Col = lineColAt(data, off)
		d.Msg += hint(msg, data, off, reported)
	} else {
		d.Msg += hint(msg, data, -1, reported)
	}
	return d
}

// reportedLine is the line yaml.v3's error names, from 1. yaml.v3 adds one to its scanner's
// lines only and leaves a line out when it is zero, so a parser's line is one more than it says
// (at the end of the text it names the line after the last one) and a scanner error without a
// line is on the first.
func reportedLine(data []byte, err error) int {
	line := 0
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	if isParserError(yamlMessage(err)) {
		return min(line+1, max(bytes.Count(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))+1, 1))
	}
	return max(line, 1)
}

// culprit returns the offset of the character at which yaml.v3 fails with err: the end of the
// shortest start of data that fails the same way, at or after the line it reported.
func culprit(data []byte, err error, reported int) (int, bool) {
	if len(data) > maxSearchBytes {
		return 0, false
	}
	want := err.Error()
	fails := func(n int) bool {
		closers, _ := unclosed(data[:n])
		e := firstError(append(data[:n:n], closers...))
		return e != nil && e.Error() == want
	}
	lo, _ := offsetOfLine(data, reported)
	lo = max(lo-1, 0) // the line break before the reported line
	hi := len(data)
	if !fails(hi) {
		// Closing the brackets left open mends the text: the last one opened is not closed.
		if _, open := unclosed(data); open >= 0 {
			return open, true
		}
		return 0, false
	}
	// fails(lo) is taken as false; the answer is the least n in (lo, hi] with fails(n).
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		for mid > lo+1 && !utf8.RuneStart(data[mid]) && mid < len(data) {
			mid-- // cut between characters only
		}
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	off := hi - 1
	for off > 0 && !utf8.RuneStart(data[off]) {
		off--
	}
	return off, true
}

// unclosed returns the brackets that close those data leaves open, innermost first, and where
// the innermost of them opens (-1 when none is). It follows YAML just far enough: a bracket
// opens flow style where a value can start (or anywhere inside brackets), and quotes, comments
// and the text of plain values in block style hold none.
func unclosed(data []byte) (string, int) {
	var stack []int // offsets of the open brackets
	quote := byte(0)
	start := true // a value can start here
	blankAfter := func(i int) bool {
		return i+1 >= len(data) || data[i+1] == ' ' || data[i+1] == '\t' || data[i+1] == '\n' || data[i+1] == '\r'
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				i++
			case c == quote && quote == '\'' && i+1 < len(data) && data[i+1] == '\'':
				i++ // '' inside single quotes
			case c == quote:
				quote = 0
			}
			continue
		}
		inFlow := len(stack) > 0
		switch {
		case c == ' ' || c == '\t':
			continue // blanks keep what came before them
		case c == '\n' || c == '\r':
			start = true
			continue
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n\r", data[i-1]) >= 0):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
			continue
		case (c == '"' || c == '\'') && start:
			quote = c
		case (c == '[' || c == '{') && (start || inFlow):
			stack = append(stack, i)
			start = true
			continue
		case (c == ']' || c == '}') && inFlow && data[stack[len(stack)-1]] == c-2: // '[' is ']'-2, '{' is '}'-2
			stack = stack[:len(stack)-1]
		case c == ',' && inFlow, c == ':' && (inFlow || blankAfter(i)), (c == '-' || c == '?') && start && blankAfter(i):
			start = true
			continue
		}
		start = false
	}
	if len(stack) == 0 || quote != 0 {
		return "", -1
	}
	var b strings.Builder
	for i := len(stack) - 1; i >= 0; i-- {
		b.WriteByte(data[stack[i]] + 2)
	}
	return b.String(), stack[len(stack)-1]
}

// firstError is the first error yaml.v3 finds in data's documents; it never panics.
func firstError(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// lineColAt is the line and column (from 1, the column in characters) of byte off of data.
func lineColAt(data []byte, off int) (int, int) {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:off], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}

// lineOf is line n (from 1) of data without its line break, or "".
func lineOf(data []byte, n int) string {
	start, ok := offsetOfLine(data, n)
	if !ok || start > len(data) {
		return ""
	}
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		end = len(data) - start
	}
	return strings.TrimSuffix(string(data[start:start+end]), "\r")
}

// keyWithoutSpace is a line that reads as "key:value": YAML takes it for one text.
var keyWithoutSpace = regexp.MustCompile(`^\s*(- +)?([A-Za-z0-9_.$-]+):([^\s:/]\S*)`)

// spacingHint says, for a value that is not of the shape expected, when a missing space made it
// so: "key:value" is one text, not a key and its value, and a list item "-key: value" is a key
// "-key".
func spacingHint(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.ScalarNode && n.Style == 0:
		if m := keyWithoutSpace.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value && m[1] == "" {
			return fmt.Sprintf(` (write "%s: %s": a key needs a space after its colon)`, m[2], m[3])
		}
	case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
		k, v := n.Content[0], n.Content[1]
		if k.Kind == yaml.ScalarNode && len(k.Value) > 1 && k.Value[0] == '-' && k.Value[1] != ' ' && k.Value[1] != '-' {
			item := "- " + k.Value[1:] + ":"
			if v.Kind == yaml.ScalarNode && v.Value != "" {
				item += " " + v.Value
			}
			return fmt.Sprintf(` (write "%s": a list item needs a space after its dash)`, item)
		}
	}
	return ""
}

// hint says, for the mistakes that are easy to make, what to do: off is where yaml.v3 failed
// (-1 when not known), reported the line it named.
func hint(msg string, data []byte, off, reported int) string {
	at := byte(0)
	if off >= 0 && off < len(data) {
		at = data[off]
	}
	line := lineOf(data, reported)
	if off >= 0 {
		l, _ := lineColAt(data, off)
		line = lineOf(data, l)
	}
	switch {
	case strings.Contains(line, "${") && strings.ContainsAny(strings.ReplaceAll(line, "${", ""), "{[") &&
		(strings.HasPrefix(msg, "did not find expected ',' or") || strings.HasPrefix(msg, "did not find expected node content")):
		// `{ port: ${PORT} }` is the usual cause: in flow style `{` is YAML syntax.
		return ` (inside { } or [ ], quote values that use "${...}")`
	case at == '\t' || strings.Contains(msg, "tab character"):
		return " (YAML indents with spaces, not tabs)"
	case strings.HasPrefix(msg, "found character that cannot start any token") && (at == '@' || at == '`' || at == '%'):
		return fmt.Sprintf(" (a value cannot start with %q: quote it)", at)
	case strings.HasPrefix(msg, "found unexpected end of stream") && (at == '"' || at == '\''):
		return fmt.Sprintf(" (the %c here is never closed)", at)
	case strings.HasPrefix(msg, "found unknown escape character"):
		return ` (in double quotes \ starts an escape: write \\, or use single quotes)`
	case strings.HasPrefix(msg, "mapping values are not allowed"):
		return colonHint(data, off)
	case strings.HasPrefix(msg, "did not find expected key") && closedBefore(data, off) != "":
		return " (text follows " + closedBefore(data, off) + ": quote the whole value)"
	case strings.HasPrefix(msg, "did not find expected key"), strings.HasPrefix(msg, "did not find expected '-' indicator"):
		return " (check the indentation: keys of one mapping, and the items of one list, line up)"
	case strings.HasPrefix(msg, "did not find expected ',' or "):
		return bracketHint(data, off)
	case strings.HasPrefix(msg, "could not find expected ':'"):
		if m := keyWithoutSpace.FindStringSubmatch(line); m != nil {
			return fmt.Sprintf(` (write "%s: %s": a key needs a space after its colon)`, m[2], m[3])
		}
		return ` (a key is followed by ": " and its value)`
	}
	return ""
}

// colonHint explains a ": " where YAML takes no key: inside a value on the same line, or at the
// start of a line that YAML reads as more of the value above it, usually because that value was
// written "key:value", without a space.
func colonHint(data []byte, off int) string {
	if off < 0 {
		return ""
	}
	l, c := lineColAt(data, off)
	line := lineOf(data, l)
	if strings.Contains(string([]rune(line)[:c-1]), ": ") {
		return ` (a ": " inside a value starts a mapping: quote the value)`
	}
	for prev := l - 1; prev >= 1; prev-- {
		p := lineOf(data, prev)
		if strings.TrimSpace(p) == "" {
			continue
		}
		if m := keyWithoutSpace.FindStringSubmatch(p); m != nil {
			return fmt.Sprintf(` (line %d has no space after "%s:", so this line is read as more of its value)`, prev, m[2])
		}
		break
	}
	return " (this line is read as more of the value above it: check its indentation, or quote that value)"
}

// bracketHint names the bracket that is open where yaml.v3 wanted a comma or its end.
func bracketHint(data []byte, off int) string {
	open := -1
	if off >= 0 {
		_, open = unclosed(data[:off])
	}
	if open < 0 {
		return " (a [ or { is not closed, or a value in it needs quotes)"
	}
	l, c := lineColAt(data, open)
	return fmt.Sprintf(" (the %c at %d:%d is not closed by %c, or a value in it needs quotes)", data[open], l, c, data[open]+2)
}

// closedBefore names the value that ends right before off on its line, past blanks, when it is
// quoted or in brackets: YAML takes no more text after one.
func closedBefore(data []byte, off int) string {
	i := off - 1
	for i >= 0 && (data[i] == ' ' || data[i] == '\t') {
		i--
	}
	switch {
	case i < 0 || i == off-1:
		return ""
	case data[i] == '"' || data[i] == '\'':
		return "a quoted value"
	case data[i] == ']' || data[i] == '}':
		return "a value in brackets"
	}
	return ""
}

// isParserError reports the messages yaml.v3's parser (not its scanner) produces.
func isParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected") ||
		strings.HasPrefix(msg, "found undefined tag handle") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		strings.HasPrefix(msg, "found incompatible YAML document")
}

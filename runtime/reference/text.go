package reference

import (
	"fmt"
	"io"
	"strings"
)

// textWidth is where the text reference wraps its paragraphs.
const textWidth = 100

// WriteText writes the reference of the block or connector named name, for a terminal: its
// summary, what it does, a table of its settings and an example.
func WriteText(w io.Writer, name string) error {
	c, err := find(name)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n\n", c.kind, c.name, c.summary)
	b.WriteString(wrap(c.doc, "", textWidth) + "\n")
	for _, t := range c.tables {
		fmt.Fprintf(&b, "\n%s. %s\n\n", t.title, strings.ReplaceAll(t.where, "`", ""))
		writeRows(&b, t.rows)
	}
	fmt.Fprintf(&b, "\nExample:\n\n%s", indent(c.example, "  "))
	_, err = io.WriteString(w, b.String())
	return err
}

// writeRows writes a settings table: a line of columns per key, its doc and example below it.
func writeRows(b *strings.Builder, rows []row) {
	if len(rows) == 0 {
		b.WriteString("  (none)\n")
		return
	}
	head := []string{"KEY", "TYPE", "DEFAULT", "REQUIRED", "ALLOWED"}
	cells := [][]string{head}
	for _, r := range rows {
		cells = append(cells, []string{r.key, r.typ, r.def, yes(r.required), r.allowed})
	}
	widths := make([]int, len(head))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for i, line := range cells {
		var l strings.Builder
		l.WriteString("  ")
		for j, c := range line {
			l.WriteString(c)
			if j < len(line)-1 {
				l.WriteString(strings.Repeat(" ", widths[j]-len([]rune(c))+2))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
		if i == 0 {
			continue
		}
		r := rows[i-1]
		b.WriteString(wrap(r.doc, "      ", textWidth) + "\n")
		if r.example != "" {
			b.WriteString(wrap("Example: "+r.example, "      ", textWidth) + "\n")
		}
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// wrap breaks text into lines of at most width runes (a longer word stays whole), each
// starting with prefix.
func wrap(text, prefix string, width int) string {
	var lines []string
	line := prefix
	for _, word := range strings.Fields(text) {
		if line != prefix && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, line)
			line = prefix
		}
		if line != prefix {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// indent puts prefix before each line of text, which ends with a newline.
func indent(text, prefix string) string {
	text = strings.TrimRight(text, "\n")
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix) + "\n"
}

package placeholder

import (
	"fmt"
	"strings"
)

// Pos is where a tag starts in the template text.
type Pos struct {
	Offset int // byte offset of the tag's "{{"
	Line   int // 1-based line within the text
	Column int // 1-based column in characters (runes), as yaml.v3 counts them
}

// Error is a compile error in one tag; Compile joins one per bad tag.
type Error struct {
	Pos
	Tag string // the tag as written, shortened when long
	Msg string // what is wrong, lowercase
}

// Error formats as "line:col: what", so a caller can prefix the file and shift the line.
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// maxTagShown bounds Error.Tag: a stray "{{" in prose can swallow a long text.
const maxTagShown = 60

func newError(pos Pos, tag, format string, a ...any) *Error {
	if len(tag) > maxTagShown {
		tag = tag[:maxTagShown] + "…"
	}
	return &Error{Pos: pos, Tag: tag, Msg: fmt.Sprintf(format, a...)}
}

// posTracker turns byte offsets into lines and columns in one forward pass, because
// tags are met in order and a template may hold thousands of them.
type posTracker struct {
	text      string
	off       int
	line, col int
}

func newPosTracker(text string) *posTracker {
	return &posTracker{text: text, line: 1, col: 1}
}

// at returns the position of off; offsets must not decrease between calls.
func (p *posTracker) at(off int) Pos {
	for ; p.off < off; p.off++ {
		switch c := p.text[p.off]; {
		case c == '\n':
			p.line, p.col = p.line+1, 1
		case c&0xC0 != 0x80: // count a rune at its first byte only
			p.col++
		}
	}
	return Pos{Offset: off, Line: p.line, Column: p.col}
}

// suggest returns the candidate closest to name, or "" when none is close enough to be
// a likely typo. Case is ignored when measuring, so "$randomint" finds "$randomInt".
func suggest(name string, candidates []string) string {
	limit := maxTypoDistance(name)
	best, bestDist := "", limit+1
	lower := strings.ToLower(name)
	for _, c := range candidates {
		if abs(len(c)-len(name)) > limit {
			continue // too far apart to be a typo; skip the quadratic measure
		}
		d := editDistance(lower, strings.ToLower(c))
		if d < bestDist || (d == bestDist && best != "" && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

// maxTypoDistance grows with the name: one slip in a short name, up to three in a long one.
func maxTypoDistance(name string) int {
	return max(1, min(3, len(name)/4))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the optimal string alignment distance: insertions, deletions,
// substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// didYouMean formats a suggestion as a parenthesised hint, or "" when there is none.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q)", s)
}

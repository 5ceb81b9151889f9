package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate closest to name, ignoring case, or "" when none is close enough
// to be what the user meant: within a third of the name's length in edits (at least one), or
// a candidate that name is the start of.
func Suggest(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	lower := strings.ToLower(name)
	limit := max(1, utf8.RuneCountInString(name)/3)
	best, bestDist := "", -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(lower, lc)
		longest := max(utf8.RuneCountInString(lower), utf8.RuneCountInString(lc))
		// A distance equal to the longer length means nothing is shared; "a" is not a typo of "b".
		near := d <= limit && d < longest
		if !near && len(lower) >= 3 && strings.HasPrefix(lc, lower) {
			near = true
		}
		if near && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// Unknown words the standard complaint about a name that is not one of known, such as
// `unknown key "methds" (did you mean "methods"?)`: a suggestion when one is close, otherwise
// the list of what is accepted.
func Unknown(what, name string, known []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, name)
	if s := Suggest(name, known); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(known) == 0 {
		return msg
	}
	return msg + "; expected one of: " + strings.Join(known, ", ")
}

// editDistance is the optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two neighbours each cost one, the usual shapes of a typo.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: the swap rule looks two rows back.
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

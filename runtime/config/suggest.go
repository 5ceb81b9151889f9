package config

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Suggest returns the candidate closest to name, ignoring case, or "" when none is close enough
// to be what the user meant. Closest first: the same word in another number (retry for
// retries, header for headers), then within a third of the name's length in edits (at least
// one), then a candidate with name as one of its words (backoff for retryBackoff), then one
// that name is the start of. Meaning comes before spelling: retry is retries, not the longer
// retryBackoff it starts.
func Suggest(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	lower := strings.ToLower(name)
	limit := max(1, utf8.RuneCountInString(name)/3)
	best, bestRank := "", -1
	for _, c := range candidates {
		if r := rank(lower, c, limit); r >= 0 && (bestRank < 0 || r < bestRank) {
			best, bestRank = c, r
		}
	}
	return best
}

// rank says how near candidate c is to the lowercase name, lower nearer, -1 not near at all:
// the ranks of the kinds of nearness Suggest lists do not overlap.
func rank(lower, c string, limit int) int {
	lc := strings.ToLower(c)
	if lc != lower && singular(lc) == singular(lower) {
		return 0
	}
	d := editDistance(lower, lc)
	longest := max(utf8.RuneCountInString(lower), utf8.RuneCountInString(lc))
	// A distance equal to the longer length means nothing is shared; "a" is not a typo of "b".
	if d <= limit && d < longest {
		return 1 + d
	}
	const far = 1 << 20
	if len(lower) >= 4 && slices.Contains(words(c), lower) {
		return far
	}
	if len(lower) >= 3 && strings.HasPrefix(lc, lower) {
		return far + d
	}
	return -1
}

// singular is an English word's singular as names are written: retries is retry, headers header.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// words splits a camelCase, kebab-case or snake_case name into its lowercase words.
func words(name string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, strings.ToLower(name[start:end]))
		}
	}
	for i, r := range name {
		switch {
		case r == '-' || r == '_' || r == '.':
			flush(i)
			start = i + 1
		case unicode.IsUpper(r) && i > start:
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return out
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

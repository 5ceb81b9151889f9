package placeholder

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// valueKind says how a drawn value is written where a JSON value is expected: numbers
// and booleans bare, text quoted.
type valueKind uint8

const (
	kindText valueKind = iota
	kindNumber
	kindBool
)

// dynSpec is one $name: what it draws and which arguments it accepts.
type dynSpec struct {
	kind valueKind
	args *argSpec // nil: takes no arguments
	gen  func(r *Rand, a [2]float64) string
}

// argSpec describes optional arguments: either none are given (defaults apply) or all.
type argSpec struct {
	names    []string // one or two, shown in errors
	def      [2]float64
	lo, hi   float64 // every argument must lie in [lo, hi]
	decimals int     // 0 means whole numbers only
	ordered  bool    // two arguments: first <= second
}

// maxCount bounds counts and lengths so one tag cannot make a huge answer.
const maxCount = 1000

// maxSafeInt is the largest integer a JSON client written in JavaScript reads exactly.
const maxSafeInt = 1<<53 - 1

func countArg(name string, def float64) *argSpec {
	return &argSpec{names: []string{name}, def: [2]float64{def}, lo: 1, hi: maxCount}
}

// dynCall is a $name bound to its arguments at compile time.
type dynCall struct {
	name string
	spec *dynSpec
	args [2]float64
}

func (c *dynCall) draw(r *Rand) string { return c.spec.gen(r, c.args) }

// Constructors keep the name tables one line per name.

func fake(fn func(*gofakeit.Faker) string) *dynSpec {
	return &dynSpec{gen: func(r *Rand, _ [2]float64) string { return fn(r.f) }}
}

func drawn(fn func(*Rand) string) *dynSpec {
	return &dynSpec{gen: func(r *Rand, _ [2]float64) string { return fn(r) }}
}

func oneOf(list ...string) *dynSpec {
	return &dynSpec{gen: func(r *Rand, _ [2]float64) string { return r.pick(list) }}
}

func withArgs(args *argSpec, fn func(*Rand, [2]float64) string) *dynSpec {
	return &dynSpec{args: args, gen: fn}
}

func (s *dynSpec) as(k valueKind) *dynSpec {
	s.kind = k
	return s
}

// dynamics holds every $name; the tables live beside their generators.
var dynamics = mergeNames(commonNames, peopleNames, imageNames, financeNames, businessNames,
	dateNames, webNames, fileNames, storeNames, wordNames)

// dynamicNames is the sorted name list, for suggestions and DynamicNames.
var dynamicNames = slices.Sorted(maps.Keys(dynamics))

func mergeNames(groups ...map[string]*dynSpec) map[string]*dynSpec {
	all := map[string]*dynSpec{}
	for _, g := range groups {
		maps.Copy(all, g)
	}
	return all
}

// DynamicNames lists every $name the language knows, sorted, for editors and docs.
func DynamicNames() []string { return slices.Clone(dynamicNames) }

// bind checks a tag's arguments against the spec and returns the prepared call, or an
// error message naming the argument at fault.
func bind(name string, spec *dynSpec, words []string) (dynCall, string) {
	call := dynCall{name: name, spec: spec}
	a := spec.args
	if a == nil {
		if len(words) > 0 {
			return call, fmt.Sprintf("%s takes no arguments, got %d", name, len(words))
		}
		return call, ""
	}
	call.args = a.def
	if len(words) == 0 {
		return call, ""
	}
	if len(words) != len(a.names) {
		return call, fmt.Sprintf("%s takes %s or none, got %d", name, a.describe(), len(words))
	}
	for i, w := range words {
		v, ok := parseDecimal(w, a.decimals)
		if !ok {
			return call, fmt.Sprintf("%s: %s %q is not %s", name, a.names[i], w, a.numberKind())
		}
		if v < a.lo || v > a.hi {
			return call, fmt.Sprintf("%s: %s %s is out of range %s..%s", name, a.names[i], w, num(a.lo), num(a.hi))
		}
		call.args[i] = v
	}
	if a.ordered && call.args[0] > call.args[1] {
		return call, fmt.Sprintf("%s: %s %s is greater than %s %s", name, a.names[0], words[0], a.names[1], words[1])
	}
	return call, ""
}

func (a *argSpec) describe() string {
	if len(a.names) == 1 {
		return fmt.Sprintf("1 argument (%s)", a.names[0])
	}
	return fmt.Sprintf("%d arguments (%s)", len(a.names), strings.Join(a.names, " "))
}

func (a *argSpec) numberKind() string {
	if a.decimals == 0 {
		return "a whole number"
	}
	return fmt.Sprintf("a number with at most %d decimals", a.decimals)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseDecimal reads an optionally signed decimal with at most the given digits after
// the point. It refuses exponents, hex, NaN and Inf, which ParseFloat alone would take.
func parseDecimal(s string, decimals int) (float64, bool) {
	t := s
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	whole, frac, dot := strings.Cut(t, ".")
	if !allDigits(whole) {
		return 0, false
	}
	if dot && (decimals == 0 || len(frac) > decimals || !allDigits(frac)) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

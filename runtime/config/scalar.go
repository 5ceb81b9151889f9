package config

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// str accepts any scalar: `value: 42` is the text "42", as an expression setting expects.
func (d *decoder) str(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind != yaml.ScalarNode {
		d.typeErr(n, at, "a string")
		return
	}
	v.SetString(n.Value)
}

// boolean accepts YAML booleans and, as `${VAR}` makes them, quoted "true" or "false".
func (d *decoder) boolean(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind == yaml.ScalarNode {
		switch tag := n.ShortTag(); {
		case tag == "!!bool", tag == "!!str" && (strings.EqualFold(n.Value, "true") || strings.EqualFold(n.Value, "false")):
			v.SetBool(strings.EqualFold(n.Value, "true"))
			return
		}
	}
	d.typeErr(n, at, "true or false")
}

// numberText returns the digits of a scalar meant as a number: a YAML int or float, or a quoted
// string such as `"${PORT}"` after interpolation. ok is false for anything else.
func numberText(n *yaml.Node, floats bool) (text string, yamlNumber, ok bool) {
	if n.Kind != yaml.ScalarNode {
		return "", false, false
	}
	switch n.ShortTag() {
	case "!!int":
		return strings.ReplaceAll(n.Value, "_", ""), true, true
	case "!!float":
		return strings.ReplaceAll(n.Value, "_", ""), true, floats
	case "!!str":
		return strings.TrimSpace(n.Value), false, true
	}
	return "", false, false
}

func (d *decoder) integer(v reflect.Value, n *yaml.Node, at Where) {
	text, yamlInt, ok := numberText(n, false)
	base := 10
	if yamlInt {
		base = 0 // YAML ints may be written 0x1F or 0o17
	}
	i, err := strconv.ParseInt(text, base, 64)
	switch {
	case !ok || isSyntax(err):
		d.typeErr(n, at, "an integer")
	case err != nil || v.OverflowInt(i):
		bits := v.Type().Bits()
		d.addf(n, at, "%s is out of range (%d to %d)", n.Value, int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
	default:
		v.SetInt(i)
	}
}

func (d *decoder) unsigned(v reflect.Value, n *yaml.Node, at Where) {
	text, yamlInt, ok := numberText(n, false)
	base := 10
	if yamlInt {
		base = 0
	}
	negative := strings.HasPrefix(text, "-")
	u, err := strconv.ParseUint(strings.TrimPrefix(text, "-"), base, 64)
	switch {
	case !ok || isSyntax(err):
		d.typeErr(n, at, "a non-negative integer")
	case negative && u != 0 || err != nil || v.OverflowUint(u):
		d.addf(n, at, "%s is out of range (0 to %d)", n.Value, uint64(math.MaxUint64)>>(64-v.Type().Bits()))
	default:
		v.SetUint(u)
	}
}

func (d *decoder) float(v reflect.Value, n *yaml.Node, at Where) {
	text, _, ok := numberText(n, true)
	f, err := strconv.ParseFloat(yamlFloat(text), v.Type().Bits())
	switch {
	case !ok || isSyntax(err):
		d.typeErr(n, at, "a number")
	case err != nil:
		d.addf(n, at, "%s is out of range for a %d-bit number", n.Value, v.Type().Bits())
	default:
		v.SetFloat(f)
	}
}

// yamlFloat turns YAML's spellings of infinity and not-a-number into Go's.
func yamlFloat(s string) string {
	switch strings.ToLower(s) {
	case ".inf", "+.inf":
		return "+Inf"
	case "-.inf":
		return "-Inf"
	case ".nan":
		return "NaN"
	}
	return s
}

// duration takes Go duration text only; a bare number is refused because its unit is a guess.
func (d *decoder) duration(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if dur, err := time.ParseDuration(strings.TrimSpace(n.Value)); err == nil {
			v.SetInt(int64(dur))
			return
		}
	}
	d.typeErr(n, at, `a duration such as "5s" or "250ms"`)
}

func isSyntax(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrSyntax
}

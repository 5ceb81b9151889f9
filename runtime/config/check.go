package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// defaultValue is a default tag decoded once into the field's type.
type defaultValue struct{ v reflect.Value }

// parseDefault decodes a default tag as the field's type decodes a written scalar.
func parseDefault(fi fieldInfo) (*defaultValue, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fi.Default), &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.ScalarNode {
		return nil, errors.New("not a single scalar")
	}
	v := reflect.New(fi.Field.Type).Elem()
	d := &decoder{}
	d.value(v, doc.Content[0], Where{})
	if len(d.diags) > 0 {
		return nil, errors.New(d.diags[0].Msg)
	}
	if fi.Enum != nil && !slices.Contains(fi.Enum, reflect.Indirect(v).String()) {
		return nil, fmt.Errorf("not one of the enum %v", fi.Enum)
	}
	return &defaultValue{v: v}, nil
}

// applyDefaults sets the defaults of struct v's fields that are still zero, and those of the
// plain structs inside it, before its keys are decoded: a key written as null keeps its default.
func applyDefaults(v reflect.Value) {
	info := infoOf(v.Type())
	if !info.defaults {
		return
	}
	for _, f := range info.fields {
		fv := v.FieldByIndex(f.Index)
		switch {
		case f.def != nil && fv.IsZero():
			fv.Set(f.def.v)
		case fv.Kind() == reflect.Struct && plainStruct(fv.Type()):
			applyDefaults(fv)
		}
	}
}

// plainStruct reports a struct type decoded key by key, whose fields may have defaults.
func plainStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !isSpecial(t) && t != durationType
}

// bound is a min or max tag parsed as the field's kind of number.
type bound struct {
	i int64
	u uint64
	f float64
}

// parseBound parses a bound for a field of type t: an integer, a number or a duration.
func parseBound(t reflect.Type, text string) (*bound, error) {
	t = indirect(t)
	var b bound
	var err error
	switch {
	case t == durationType:
		var d time.Duration
		d, err = time.ParseDuration(text)
		b.i = int64(d)
	case isInt(t.Kind()):
		b.i, err = strconv.ParseInt(text, 10, 64)
	case isUint(t.Kind()):
		b.u, err = strconv.ParseUint(text, 10, 64)
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		b.f, err = strconv.ParseFloat(text, 64)
	default:
		return nil, fmt.Errorf("a bound on a %s; only numbers and durations take one", t)
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not a %s", text, t)
	}
	return &b, nil
}

func isInt(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Int64 }

func isUint(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uintptr }

// compare returns -1, 0 or 1 as v (a number or duration) is below, at or above b.
func (b *bound) compare(v reflect.Value) int {
	switch k := v.Kind(); {
	case isInt(k):
		return cmpOrdered(v.Int(), b.i)
	case isUint(k):
		return cmpOrdered(v.Uint(), b.u)
	}
	f := v.Float()
	if math.IsNaN(f) {
		return 1 // past any bound: NaN is never in range
	}
	return cmpOrdered(f, b.f)
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// check reports a decoded value of field f that its enum or bounds refuse, at n.
func (d *decoder) check(f *fieldInfo, v reflect.Value, n *yaml.Node, at Where) {
	if f.Enum == nil && f.min == nil && f.max == nil {
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if f.Enum != nil {
		d.checkEnum(f, v, n, at)
		return
	}
	low := f.min != nil && (f.min.compare(v) < 0 || f.MinExclusive && f.min.compare(v) == 0)
	high := f.max != nil && f.max.compare(v) > 0
	if low || high {
		d.addf(n, at, "%s", f.outOfRange(v))
	}
}

// checkEnum reports a string, or each string of list v, that is not one of f's enum.
func (d *decoder) checkEnum(f *fieldInfo, v reflect.Value, n *yaml.Node, at Where) {
	if v.Kind() != reflect.Slice {
		if s := v.String(); !f.inEnum(s) {
			d.addf(n, at, "%s", Unknown(f.Key, s, f.Enum))
		}
		return
	}
	// An item is named by the key without its plural s: an unknown method, an unknown algorithm.
	item := strings.TrimSuffix(f.Key, "s")
	for i := range min(v.Len(), len(n.Content)) {
		if s := v.Index(i).String(); !f.inEnum(s) {
			d.addf(n.Content[i], at.Index(i), "%s", Unknown(item, s, f.Enum))
		}
	}
}

// inEnum reports whether s is one of f's enum.
func (f *fieldInfo) inEnum(s string) bool {
	if !f.EnumAnyCase {
		return slices.Contains(f.Enum, s)
	}
	return slices.ContainsFunc(f.Enum, func(e string) bool { return strings.EqualFold(e, s) })
}

// outOfRange says which bounds v breaks, in the words of the bounds f has.
func (f *fieldInfo) outOfRange(v reflect.Value) string {
	got, lo, hi := showValue(v, ""), showValue(v, f.Min), showValue(v, f.Max)
	switch {
	case f.min != nil && f.max != nil && f.MinExclusive:
		return fmt.Sprintf("%s must be more than %s and at most %s, got %s", f.Key, lo, hi, got)
	case f.min != nil && f.max != nil:
		return fmt.Sprintf("%s %s is out of range %s-%s", f.Key, got, lo, hi)
	case f.MinExclusive && lo == showValue(v, "0"):
		return fmt.Sprintf("%s must be positive, got %s", f.Key, got)
	case f.MinExclusive:
		return fmt.Sprintf("%s must be more than %s, got %s", f.Key, lo, got)
	case f.min != nil:
		return fmt.Sprintf("%s must be at least %s, got %s", f.Key, lo, got)
	}
	return fmt.Sprintf("%s must be at most %s, got %s", f.Key, hi, got)
}

// showValue renders v, or the bound text as v's type shows it (a duration as 1h0m0s).
func showValue(v reflect.Value, text string) string {
	if v.Type() == durationType {
		d := time.Duration(v.Int())
		if text != "" {
			d, _ = time.ParseDuration(text) // checked when the tag was read
		}
		return d.String()
	}
	if text != "" {
		return strings.TrimSpace(text)
	}
	return fmt.Sprint(v.Interface())
}

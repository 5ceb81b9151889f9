package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A settings struct declares its keys with struct tags, read once per type:
//
//	yaml:"name"          the key (`yaml:",inline"` embeds a struct's keys, `yaml:"-"` skips a field)
//	octo:"required"      the key must be written (a required string must not be empty)
//	doc:"…"              what the key means, for `octo blocks` and the generated schema
//	default:"…"          the value when the key is left out, parsed as the field's type would be
//	enum:"a,b,c"         the only values a string (or each string of a list) takes;
//	                     with octo:"anycase" they match without regard to case
//	min:"0" max:"65535"  bounds of a number or duration; min:">0" excludes the bound
//	example:"…"          a value to show in the reference
//
// A malformed tag (a default or bound the field's type cannot hold, an enum on a field that is
// not a string) is a programming error: reading the type panics, and registration reads every
// settings type in init, so every test finds it.

// structInfo is what Decode needs to know about a struct type, computed once per type.
type structInfo struct {
	fields []fieldInfo
	byName map[string]int
	names  []string // in declaration order, for suggestions and "expected one of"
	// defaults is set when a field has a default or is a plain struct, which may have some.
	defaults bool
}

type fieldInfo struct {
	Setting
	def *defaultValue // nil: no default
	min *bound
	max *bound
}

// Setting is one key of a settings struct type, as its tags declare it.
type Setting struct {
	Key      string
	Field    reflect.StructField // the Go field; for an inline struct's key, the inner field
	Index    []int               // the field's index path from the outer struct
	Required bool
	Doc      string
	Default  string // as written in the tag; "" for none
	Enum     []string
	// EnumAnyCase is set by octo:"anycase": a value matches an enum entry without regard to case.
	EnumAnyCase bool
	Min, Max    string // as written in the tags, without a leading ">"
	// MinExclusive is set by min:">…": the value must be more than Min.
	MinExclusive bool
	Example      string
}

var structInfos sync.Map // reflect.Type → *structInfo

// SettingsOf returns the keys struct type t declares, in declaration order, with inline structs'
// keys in their place. It panics on a malformed tag.
func SettingsOf(t reflect.Type) []Setting {
	info := infoOf(t)
	out := make([]Setting, len(info.fields))
	for i, f := range info.fields {
		out[i] = f.Setting
	}
	return out
}

// infoOf returns the cached key table of struct type t.
func infoOf(t reflect.Type) *structInfo {
	if info, ok := structInfos.Load(t); ok {
		return info.(*structInfo)
	}
	info := &structInfo{byName: map[string]int{}}
	collectFields(info, t, nil)
	actual, _ := structInfos.LoadOrStore(t, info)
	return actual.(*structInfo)
}

// collectFields adds t's fields to info, descending into `yaml:",inline"` structs.
func collectFields(info *structInfo, t reflect.Type, prefix []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		index := append(append([]int(nil), prefix...), i)
		if hasOpt(opts, "inline") && f.Type.Kind() == reflect.Struct {
			collectFields(info, f.Type, index)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name) // yaml.v3's default, so tags stay optional
		}
		if _, dup := info.byName[name]; dup {
			continue // the first field to claim a key keeps it
		}
		fi := readTags(t, f, name, index)
		info.byName[name] = len(info.fields)
		info.names = append(info.names, name)
		info.fields = append(info.fields, fi)
		info.defaults = info.defaults || fi.def != nil || plainStruct(f.Type)
	}
}

// readTags reads the tags of field f of struct type owner, panicking on a malformed one.
func readTags(owner reflect.Type, f reflect.StructField, key string, index []int) fieldInfo {
	fi := fieldInfo{Setting: Setting{
		Key:      key,
		Field:    f,
		Index:    index,
		Required: hasOpt(f.Tag.Get("octo"), "required"),
		Doc:      f.Tag.Get("doc"),
		Default:  f.Tag.Get("default"),
		Example:  f.Tag.Get("example"),
	}}
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("config: %s.%s (%q): %s", owner, f.Name, key, fmt.Sprintf(format, args...)))
	}
	if enum, ok := f.Tag.Lookup("enum"); ok {
		if t := indirect(f.Type); t.Kind() != reflect.String && (t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.String) {
			bad("enum on a %s; only strings and lists of strings take one", f.Type)
		}
		fi.Enum = strings.Split(enum, ",")
		fi.EnumAnyCase = hasOpt(f.Tag.Get("octo"), "anycase")
	}
	var err error
	if text, ok := f.Tag.Lookup("min"); ok {
		fi.MinExclusive = strings.HasPrefix(text, ">")
		fi.Min = strings.TrimPrefix(text, ">")
		if fi.min, err = parseBound(f.Type, fi.Min); err != nil {
			bad("min: %v", err)
		}
	}
	if text, ok := f.Tag.Lookup("max"); ok {
		fi.Max = text
		if fi.max, err = parseBound(f.Type, text); err != nil {
			bad("max: %v", err)
		}
	}
	if fi.Default != "" {
		if fi.def, err = parseDefault(fi); err != nil {
			bad("default %q: %v", fi.Default, err)
		}
	}
	return fi
}

// indirect strips pointers.
func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func hasOpt(opts, want string) bool {
	for opt := range strings.SplitSeq(opts, ",") {
		if strings.TrimSpace(opt) == want {
			return true
		}
	}
	return false
}

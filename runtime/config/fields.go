package config

import (
	"reflect"
	"strings"
	"sync"
)

// structInfo is what Decode needs to know about a struct type, computed once per type.
type structInfo struct {
	fields []fieldInfo
	byName map[string]int
	names  []string // in declaration order, for suggestions and "expected one of"
}

type fieldInfo struct {
	name     string
	index    []int
	required bool
}

var structInfos sync.Map // reflect.Type → *structInfo

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
		info.byName[name] = len(info.fields)
		info.names = append(info.names, name)
		info.fields = append(info.fields, fieldInfo{
			name:     name,
			index:    index,
			required: hasOpt(f.Tag.Get("octo"), "required"),
		})
	}
}

func hasOpt(opts, want string) bool {
	for opt := range strings.SplitSeq(opts, ",") {
		if strings.TrimSpace(opt) == want {
			return true
		}
	}
	return false
}

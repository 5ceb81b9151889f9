package config

import (
	"reflect"
	"slices"
	"testing"
)

// The schema and the reference describe a config file from these types: every key says what it
// means, and the sections are the ones the loader reads.
func TestTheConfigKeysAreDocumented(t *testing.T) {
	types := []reflect.Type{
		reflect.TypeFor[FileKeys](), reflect.TypeFor[ServiceKeys](), reflect.TypeFor[TracingKeys](), reflect.TypeFor[EnvKeys](),
		reflect.TypeFor[ResourcesKeys](), reflect.TypeFor[TemplateKeys](), reflect.TypeFor[ConnectorKeys](),
		reflect.TypeFor[FlowKeys](), reflect.TypeFor[SourceKeys](), reflect.TypeFor[BlockKeys](),
	}
	for _, typ := range types {
		for _, s := range SettingsOf(typ) {
			if s.Doc == "" {
				t.Errorf("%s: key %q has no doc tag", typ, s.Key)
			}
		}
	}
	if want := []string{"service", "env", "resources", "connectors", "flows"}; !slices.Equal(sectionNames, want) {
		t.Errorf("sections %v, want %v", sectionNames, want)
	}
	if want := []string{"type", "name", "settings"}; !slices.Equal(keysOf[BlockKeys](), want) {
		t.Errorf("block keys %v, want %v: process.go reads these", keysOf[BlockKeys](), want)
	}
}

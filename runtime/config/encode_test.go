package config_test

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

func TestEncodedSettingsPointAtTheNodeTheyCameFrom(t *testing.T) {
	near := &yaml.Node{Line: 7, Column: 3}
	n := config.Encode(struct {
		Port  int      `yaml:"port"`
		Paths []string `yaml:"paths"`
		CORS  bool     `yaml:"cors,omitempty"`
	}{Port: 3004, Paths: []string{"/mcp", "/sse"}}, near)
	if n.Kind != yaml.MappingNode || len(n.Content) != 4 {
		t.Fatalf("encoded %+v", n)
	}
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		if x.Line != 7 || x.Column != 3 {
			t.Errorf("a node at %d:%d, want 7:3 (%q)", x.Line, x.Column, x.Value)
		}
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(n)
	var back struct {
		Port  int      `yaml:"port"`
		Paths []string `yaml:"paths"`
	}
	if err := n.Decode(&back); err != nil || back.Port != 3004 || len(back.Paths) != 2 {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	if s := config.Encode("42", nil); s.Tag != "!!str" || s.Value != "42" {
		t.Fatalf("a string that looks like a number is %s %q", s.Tag, s.Value)
	}
}

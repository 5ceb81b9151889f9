package config

import "testing"

func TestAPointerFindsThePartOfAJSONSettingWrittenAsYAML(t *testing.T) {
	roots, ds := Parse("s.yaml", []byte("schema:\n  type: object\n  properties:\n    n: { type: integr }\n  required: [a, b]\n"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	schema := roots[0].Content[1]
	p := NodePosition(schema, Where{File: "s.yaml", Path: "schema"})
	tests := []struct {
		ptr       string
		line, col int
		path      string
	}{
		{"", 2, 3, "schema"},
		{"/properties/n/type", 4, 16, "schema.properties.n.type"},
		{"/required/1", 5, 17, "schema.required[1]"},
		{"/properties/missing/type", 4, 5, "schema.properties.missing.type"}, // past what was written: the last part found
	}
	for _, tt := range tests {
		got := p.Pointer(tt.ptr)
		if got.Line != tt.line || got.Col != tt.col || got.At.Path != tt.path {
			t.Errorf("Pointer(%q) = %d:%d %s, want %d:%d %s", tt.ptr, got.Line, got.Col, got.At.Path, tt.line, tt.col, tt.path)
		}
	}
	if got := p.Pointer("/properties/n"); got.KeyLine != 4 || got.KeyCol != 5 {
		t.Errorf("the key of /properties/n is at %d:%d, want 4:5", got.KeyLine, got.KeyCol)
	}
}

package workspace

import (
	"testing"
)

// FuzzParseServer feeds saved server files to the checker and the adapter:
// no file may panic, and a file that passes must adapt to a config.
func FuzzParseServer(f *testing.F) {
	for _, s := range []string{
		"name: Weather mock\nkind: mcp\nport: 3004\nmcp:\n  tools: [ { name: a, result: x } ]\n",
		"name: a\nmcp: { cors: true, path: /x, variables: { a: b } }",
		"mcp: &m { tools: [] }\nname: *m",
		"port: -1\nkind: rest",
		"--- \n...\n",
		"name: [",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, ds := parseServer("servers/f.yaml", []byte(text))
		if s == nil {
			if len(ds) == 0 {
				t.Fatal("refused without a reason")
			}
			return
		}
		for _, tr := range []Transport{HTTP, Stdio} {
			cfg, addr := Adapt(s, map[string]string{"v": "1"}, nil, tr)
			if cfg == nil || addr == "" || len(cfg.Flows) == 0 {
				t.Fatal("adapted to nothing")
			}
		}
	})
}

package config

import (
	"cmp"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/broken")

// envOf is a lookupEnv over a fixed map, so tests never depend on the machine's environment.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// brokenCase is one folder or single file under testdata/broken with its golden file.
type brokenCase struct{ name, path, golden string }

func brokenCases(t *testing.T) []brokenCase {
	t.Helper()
	const root = "testdata/broken"
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []brokenCase
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		switch {
		case e.IsDir():
			cases = append(cases, brokenCase{e.Name(), path, filepath.Join(path, "want.golden")})
		case strings.HasSuffix(e.Name(), ".yaml"):
			name := strings.TrimSuffix(e.Name(), ".yaml")
			cases = append(cases, brokenCase{name, path, filepath.Join(root, name+".golden")})
		}
	}
	return cases
}

func TestLoadReportsEveryMistakeOfABrokenConfigExactly(t *testing.T) {
	cases := brokenCases(t)
	if len(cases) < 15 {
		t.Fatalf("want at least 15 broken configs, found %d", len(cases))
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "-", " ")+" is reported", func(t *testing.T) {
			cfg, err := Load(c.path, envOf(nil))
			if err == nil {
				t.Fatalf("a broken config loaded without error")
			}
			if cfg != nil {
				t.Errorf("a config came back along with the error")
			}
			var ds Diags
			if !errors.As(err, &ds) {
				t.Fatalf("error is %T, not Diags", err)
			}
			if !slices.IsSortedFunc(ds, byPosition) {
				t.Errorf("diagnostics are not sorted by file, line and column:\n%v", err)
			}
			got := filepath.ToSlash(err.Error()) + "\n"
			if *update {
				if err := os.WriteFile(c.golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(c.golden)
			if rerr != nil {
				t.Fatalf("%v (run go test ./runtime/config -update to create it)", rerr)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ from %s\n--- got\n%s--- want\n%s", c.golden, got, want)
			}
		})
	}
}

// byPosition orders diagnostics the way Err promises: file, then line, then column.
func byPosition(a, b Diag) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

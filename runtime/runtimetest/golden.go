package runtimetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func noEnv(string) (string, bool) { return "", false }

// BuildGoldens checks every YAML file matching glob: it must load, must not
// build, and its diagnostics must equal, exactly, the .golden file beside
// it (rewritten instead when update is set). Block and connector packages
// must be registered by the caller's imports.
func BuildGoldens(t *testing.T, glob string, update bool) {
	t.Helper()
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no cases match %s", glob)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(strings.ReplaceAll(name, "-", " ")+" are reported", func(t *testing.T) {
			cfg, err := config.Load(f, noEnv)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			svc, err := runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv})
			if err == nil || svc != nil {
				t.Fatal("a broken config was built")
			}
			Golden(t, strings.TrimSuffix(f, ".yaml")+".golden", filepath.ToSlash(err.Error())+"\n", update)
		})
	}
}

// Golden compares got with the golden file, or rewrites the file with got
// when update is set.
func Golden(t testing.TB, golden, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Fatalf("got:\n%swant:\n%s", got, want)
	}
}

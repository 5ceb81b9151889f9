package runtime_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

var update = flag.Bool("update", false, "rewrite golden files")

func noEnv(string) (string, bool) { return "", false }

// Each file under testdata/build loads as YAML but cannot be built; its
// golden file holds every diagnostic, exactly.
func TestBuildReportsEveryBlockAndConnectorMistake(t *testing.T) {
	files, _ := filepath.Glob("testdata/build/*.yaml")
	if len(files) == 0 {
		t.Fatal("no cases")
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
			got := filepath.ToSlash(err.Error()) + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
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
		})
	}
}

func TestTheSamplesBuild(t *testing.T) {
	for _, dir := range []string{"../samples/hello"} {
		t.Run(dir+" builds", func(t *testing.T) {
			cfg, err := config.Load(dir, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

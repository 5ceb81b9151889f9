package router_test

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

func TestRouterBuildMistakesAreAllReportedWithTheirLines(t *testing.T) {
	files, _ := filepath.Glob("testdata/broken/*.yaml")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(strings.ReplaceAll(name, "-", " "), func(t *testing.T) {
			cfg, err := config.Load(f, noEnv)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			_, err = runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv})
			if err == nil {
				t.Fatal("a broken router was built")
			}
			got := filepath.ToSlash(err.Error()) + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				_ = os.WriteFile(golden, []byte(got), 0o644)
				return
			}
			want, _ := os.ReadFile(golden)
			if got != string(want) {
				t.Fatalf("got:\n%swant:\n%s", got, want)
			}
		})
	}
}

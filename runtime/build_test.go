package runtime_test

import (
	"flag"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func noEnv(string) (string, bool) { return "", false }

// Each file under testdata/build loads as YAML but cannot be built; its
// golden file holds every diagnostic, exactly.
func TestBuildReportsEveryBlockAndConnectorMistake(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/build/*.yaml", *update)
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

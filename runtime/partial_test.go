package runtime

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/octo-run/octo/runtime/config"
)

// The sound part of every broken config under testdata builds without a panic: what
// LoadPartial keeps is what a build can take.
func TestTheSoundPartOfABrokenConfigBuilds(t *testing.T) {
	var paths []string
	for _, glob := range []string{"config/testdata/broken/*", "testdata/build/*.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 30 {
		t.Fatalf("found %d broken configs, want at least 30", len(paths))
	}
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() && filepath.Ext(p) != ".yaml" {
			continue
		}
		cfg, _ := config.LoadPartial(p, func(string) (string, bool) { return "", false })
		if cfg == nil {
			continue
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: the build panicked: %v", p, r)
				}
			}()
			_, _ = NewService(cfg, Options{})
		}()
	}
}

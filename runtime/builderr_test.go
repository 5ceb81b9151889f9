package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// mistakeSettings choose how a test-mistake block's build fails.
type mistakeSettings struct {
	How   string `yaml:"how" doc:"how the build fails: reported, twice, plain, nothing or checks"`
	Limit int    `yaml:"limit" doc:"a setting to report a problem at"`
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-mistake", Summary: "test: a build that fails in the way its settings say",
		Build: runtime.BlockFunc(func(b *runtime.Build, s *mistakeSettings) (runtime.Block, error) {
			switch s.How {
			case "reported":
				return nil, b.Errorf(&s.Limit, "limit %d is too small", s.Limit)
			case "twice":
				b.Errorf(&s.Limit, "first problem")
				b.Errorf(nil, "second problem")
				return nil, b.Err()
			case "plain":
				return nil, errors.New("the key file is unreadable")
			case "nothing":
				return nil, nil // a bug in a block: the builder must not take it for success
			case "checks":
				// A block's Err is its own: a problem of an earlier block does not end its build.
				if err := b.Err(); err != nil {
					return nil, err
				}
				return passBlock{}, nil
			}
			return passBlock{}, nil
		}),
	})
}

// buildErr builds a one-flow config whose process is blocks, and returns its problems.
func buildErr(t *testing.T, blocks string) config.Diags {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	text := "service: { name: s }\nconnectors: [ { name: in, type: stdio } ]\nflows:\n  - name: f\n    source: { connector: in }\n    process:\n" + blocks
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv})
	var ds config.Diags
	if err != nil && !errors.As(err, &ds) {
		t.Fatalf("a build error that is not config.Diags: %v", err)
	}
	return ds
}

func TestABuildFailsThroughItsErrorResultOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks string
		want   []string // a part of each diagnostic's text, in the order reported (the file's)
	}{
		{"a problem returned from Errorf is told once, at its setting",
			"      - { type: test-mistake, settings: { how: reported, limit: 3 } }\n",
			[]string{"c.yaml:7:65: flows[0].process[0].settings.limit (test-mistake): limit 3 is too small"}},
		{"Err carries every problem the build reported, each told once",
			"      - { type: test-mistake, settings: { how: twice, limit: 1 } }\n",
			[]string{"settings (test-mistake): second problem", "settings.limit (test-mistake): first problem"}}, // in file order
		{"a plain error is told at the block",
			"      - { type: test-mistake, settings: { how: plain } }\n",
			[]string{"c.yaml:7:9: flows[0].process[0] (test-mistake): the key file is unreadable"}},
		{"a build that returns neither a block nor an error is a bug, told as one",
			"      - { type: test-mistake, settings: { how: nothing } }\n",
			[]string{"built no block and returned no error (a bug in the block"}},
		{"a block's Err holds its own problems only, not an earlier block's",
			"      - { type: test-mistake, settings: { how: reported, limit: 0 } }\n" +
				"      - { type: test-mistake, settings: { how: checks } }\n",
			[]string{"limit 0 is too small"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := buildErr(t, tc.blocks)
			if len(ds) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ds), len(tc.want), ds)
			}
			for i, w := range tc.want {
				if !strings.Contains(ds[i].String(), w) {
					t.Errorf("problem %d is %q, want it to hold %q", i, ds[i].String(), w)
				}
			}
		})
	}
}

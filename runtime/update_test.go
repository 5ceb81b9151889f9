package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// greeter answers its greeting and takes a new one in place; "rebuild" is a greeting it only
// takes when built again, "refused" one it refuses.
type greeter struct{ greeting string }

type greeterSettings struct {
	Greeting string `yaml:"greeting"`
}

func (g *greeter) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	m.SetBody(g.greeting)
	return m, nil
}

func (g *greeter) Update(d runtime.Decoded) (config.Diags, error) {
	s := d.Settings.(*greeterSettings)
	switch s.Greeting {
	case "rebuild":
		return nil, runtime.ErrRebuild
	case "refused":
		return nil, config.Diags{d.Positions.Diag(&s.Greeting, "not a greeting")}
	}
	g.greeting = s.Greeting
	return nil, nil
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-greeter", Summary: "test",
		Build: runtime.BlockFunc(func(_ *runtime.Build, s *greeterSettings) (runtime.Block, error) {
			return &greeter{greeting: s.Greeting}, nil
		})})
}

const greeterConfig = `env:
  - { name: WHO, default: world }
connectors:
  - { name: c, type: test-recorded }
flows:
  - name: f
    source: { connector: c }
    process:
      - type: test-greeter
        settings: { greeting: hello }
      - type: test-recorded
`

func TestAnEditOfUpdatableSettingsIsTakenInPlace(t *testing.T) {
	running := buildYAML(t, greeterConfig)
	next := buildYAML(t, strings.Replace(greeterConfig, "greeting: hello", "greeting: bonjour", 1))
	updated, err := running.UpdateFrom(next)
	if err != nil || !updated {
		t.Fatalf("UpdateFrom = %v, %v; want taken in place", updated, err)
	}
	if g := running.Instance("flows.f.process[0]").(*greeter).greeting; g != "bonjour" {
		t.Fatalf("the running block greets %q", g)
	}
	if running.Instance("flows.f.process[0]") == next.Instance("flows.f.process[0]") {
		t.Fatal("the running build serves the new build's block")
	}
}

func TestAnEditElsewhereIsBuiltAnew(t *testing.T) {
	cases := map[string]string{
		"another block's settings": strings.Replace(greeterConfig, "      - type: test-recorded\n", "      - type: test-recorded\n        name: renamed\n", 1),
		"a block added":            greeterConfig + "      - type: test-recorded\n",
		"a variable's default":     strings.Replace(greeterConfig, "default: world", "default: you", 1),
		"the connectors":           strings.Replace(greeterConfig, "{ name: c, type: test-recorded }", "{ name: c, type: test-recorded, settings: {} }", 1),
		"a block moved a line":     strings.Replace(greeterConfig, "settings: { greeting: hello }", "settings:\n          greeting: hello", 1),
		"the block's name":         strings.Replace(greeterConfig, "- type: test-greeter\n", "- type: test-greeter\n        name: g\n", 1),
	}
	for name, edited := range cases {
		t.Run(name, func(t *testing.T) {
			running := buildYAML(t, greeterConfig)
			updated, err := running.UpdateFrom(buildYAML(t, edited))
			if err != nil || updated {
				t.Fatalf("UpdateFrom = %v, %v; want built anew", updated, err)
			}
			if g := running.Instance("flows.f.process[0]").(*greeter).greeting; g != "hello" {
				t.Fatalf("the running block changed to %q", g)
			}
		})
	}
}

func TestABlockDecidesWhatItTakesInPlace(t *testing.T) {
	running := buildYAML(t, greeterConfig)
	if updated, err := running.UpdateFrom(buildYAML(t, strings.Replace(greeterConfig, "hello", "rebuild", 1))); err != nil || updated {
		t.Fatalf("ErrRebuild: UpdateFrom = %v, %v; want built anew", updated, err)
	}
	_, err := running.UpdateFrom(buildYAML(t, strings.Replace(greeterConfig, "hello", "refused", 1)))
	var ds config.Diags
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), "flow.yaml:10:") || !strings.Contains(err.Error(), "not a greeting") {
		t.Fatalf("refused: err = %v, want the block's problem at its line", err)
	}
	if g := running.Instance("flows.f.process[0]").(*greeter).greeting; g != "hello" {
		t.Fatalf("the running block changed to %q", g)
	}
}

// Package switchblock is the switch block: it runs the branch of the first case whose
// expression holds, or a default branch. (Its package name is not "switch", a Go keyword.)
package switchblock

import (
	"context"
	"fmt"
	"reflect"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "switch",
		Summary: "runs the branch of the first case whose `when` expression is true, else `default`",
		Doc: "Tries its cases in order: the first whose when expression is true runs its process " +
			"branch with the message, and the branch's answer goes on to the blocks after the switch. " +
			"With no case true, the default branch runs; without a default, the message goes on " +
			"unchanged. A when that gives false or null does not match; one that can only give another " +
			"kind of value (\"yes\", len(body.items)) is a config error, and one that does at run " +
			"time fails the flow (internal error, the log names the case). Use fail in a " +
			"branch (or as the default) to refuse what no case takes.",
		Example: "type: switch\ncases:\n  - when: body.city == \"\"\n    process:\n      - type: fail\n" +
			"        settings: { message: a city is required }\n  - when: body.units == \"imperial\"\n" +
			"    process:\n      - type: set-payload\n        settings: { value: '{\"city\": body.city, \"temperature\": \"75F\"}' }\n" +
			"default:\n  - type: set-payload\n    settings: { value: '{\"city\": body.city, \"temperature\": \"24C\"}' }\n",
		Composite: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the switch block's settings, written beside its type.
type Settings struct {
	Cases   []Case         `yaml:"cases" octo:"required" doc:"The cases, tried in order; the first whose when is true runs."`
	Default runtime.Branch `yaml:"default" body:"kept" doc:"The blocks to run when no case matches; without it the message goes on unchanged."`
}

// Case is one branch of a switch and the expression that picks it.
type Case struct {
	When    runtime.Expr   `yaml:"when" octo:"required" doc:"An expression over body, vars, headers and env: true runs this case; false or null tries the next." example:"body.units == \"imperial\""`
	Process runtime.Branch `yaml:"process" octo:"required" body:"kept" doc:"The blocks this case runs."`
}

// Block runs the first matching case's branch.
type Block struct {
	cases []Case
	other runtime.Block // nil: pass the message on
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	if len(s.Cases) == 0 {
		return nil, b.Errorf(&s.Cases, "a switch needs at least one case")
	}
	for i := range s.Cases {
		if t := s.Cases[i].When.Type(); t != nil && t.Kind() != reflect.Bool {
			b.Errorf(&s.Cases[i].When, "when gives %s, not true or false; compare it (== ...) to pick a case", t)
		}
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return &Block{cases: s.Cases, other: s.Default.Block}, nil
}

// Process runs the branch of the first case that holds, else the default, else nothing.
func (s *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	for i := range s.cases {
		c := &s.cases[i]
		v, err := c.When.Eval(m)
		if err != nil {
			return nil, fmt.Errorf("cases[%d].when: %w", i, err)
		}
		switch v {
		case true:
			return c.Process.Process(ctx, m)
		case false, nil:
			continue
		}
		return nil, fmt.Errorf("cases[%d].when: expression %q gave %T, not true or false", i, c.When.Source(), v)
	}
	if s.other == nil {
		return m, nil
	}
	return s.other.Process(ctx, m)
}

var _ runtime.Block = (*Block)(nil)

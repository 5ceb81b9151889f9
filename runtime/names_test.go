package runtime_test

import (
	"context"

	"github.com/octo-run/octo/runtime"
)

// setsSettings name the vars a test-sets block sets: what the settings say, as a block whose
// result goes where a setting names does.
type setsSettings struct {
	Names []string `yaml:"names" doc:"the vars it sets; * for names known only at run time"`
}

func (s *setsSettings) SetsVars() []string { return s.Names }

// branchesSettings are a composite test block's: two branches, one of which it starts with
// vars.error set, as a catch block's error branch.
type branchesSettings struct {
	Try   runtime.Branch `yaml:"try" doc:"runs first"`
	Catch runtime.Branch `yaml:"catch" vars:"error" doc:"runs on an error, with it in vars.error"`
}

// passBlock passes the message on.
type passBlock struct{}

func (passBlock) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	return m, nil
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type: "test-sets", Summary: "test: sets the vars its settings name",
		Build: runtime.BlockFunc(func(*runtime.Build, *setsSettings) (runtime.Block, error) { return passBlock{}, nil }),
	})
	runtime.RegisterBlock(runtime.BlockSpec{
		Type: "test-branches", Summary: "test: a composite block with a branch it sets vars.error for", Composite: true,
		Build: runtime.BlockFunc(func(*runtime.Build, *branchesSettings) (runtime.Block, error) { return passBlock{}, nil }),
	})
}

var _ runtime.VarsSetter = (*setsSettings)(nil)

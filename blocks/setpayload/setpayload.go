// Package setpayload is the set-payload block: it replaces the message body
// with the result of an expression.
package setpayload

import (
	"context"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "set-payload",
		Summary: "replaces the body with the result of an expression (settings.value)",
		Build:   build,
	})
}

type settings struct {
	Value string `yaml:"value" octo:"required"`
}

// Block sets the body to an expression's value.
type Block struct{ value *runtime.Expr }

func build(b *runtime.Build) (runtime.Block, error) {
	var s settings
	if !b.Decode(&s) {
		return nil, nil
	}
	e := b.Expr(b.Setting("value"), b.At.Field("settings").Field("value"))
	if e == nil {
		return nil, nil
	}
	return &Block{value: e}, nil
}

// Process evaluates the expression against the message and sets the body.
func (p *Block) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	v, err := p.value.Eval(m)
	if err != nil {
		return nil, err
	}
	m.SetBody(v)
	return m, nil
}

var _ runtime.Block = (*Block)(nil)

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
		Doc: "Evaluates an expr-lang expression against the message (body, vars, headers, env) " +
			"and makes its result the new body: a map or list becomes JSON, a string stays text.",
		Example: "type: set-payload\nsettings:\n  value: '{\"city\": body.city, \"summary\": \"Sunny, 24C\"}'\n",
		Build:   runtime.BlockFunc(build),
	})
}

// Settings are set-payload's settings.
type Settings struct {
	Value runtime.Expr `yaml:"value" octo:"required" doc:"The expression whose result becomes the body; it sees body, vars, headers and env." example:"{\"city\": body.city}"`
}

// Block sets the body to an expression's value.
type Block struct{ value *runtime.Expr }

func build(_ *runtime.Build, s *Settings) (runtime.Block, error) {
	return &Block{value: &s.Value}, nil
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

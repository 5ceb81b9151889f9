package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// exprEnv is what an expression sees. A struct (not a map) lets expr-lang
// resolve the four names at compile time.
type exprEnv struct {
	Body    any               `expr:"body"`
	Vars    map[string]any    `expr:"vars"`
	Headers map[string]string `expr:"headers"`
	Env     map[string]string `expr:"env"`
}

// Expr is an expr-lang program compiled once, at build time.
type Expr struct {
	src         string
	program     *vm.Program
	usesBody    bool
	usesHeaders bool
	env         map[string]string
}

// CompileExpr compiles an expression over body, vars, headers and env. The
// error, when any, is an *ExprError carrying the line and column inside src.
func CompileExpr(src string, env map[string]string) (*Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &ExprError{Line: 1, Column: 1, Msg: "empty expression"}
	}
	program, err := expr.Compile(src, expr.Env(exprEnv{}))
	if err != nil {
		return nil, newExprError(err)
	}
	e := &Expr{src: src, program: program, env: env}
	names := &nameCollector{}
	root := program.Node()
	ast.Walk(&root, names)
	e.usesBody, e.usesHeaders = names.seen["body"], names.seen["headers"]
	return e, nil
}

// Source returns the expression as written.
func (e *Expr) Source() string { return e.src }

// Eval runs the expression against a message.
func (e *Expr) Eval(m *Message) (any, error) {
	env := exprEnv{Vars: m.Vars, Env: e.env}
	if e.usesBody {
		body, err := m.Body()
		if err != nil {
			return nil, err
		}
		env.Body = body
	}
	if e.usesHeaders {
		env.Headers = m.headerMap()
	}
	v := vmPool.Get().(*vm.VM)
	out, err := v.Run(e.program, env)
	vmPool.Put(v)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", e.src, err)
	}
	return out, nil
}

var vmPool = sync.Pool{New: func() any { return new(vm.VM) }}

// ExprError locates a compile error inside an expression's source text.
type ExprError struct {
	Line, Column int // 1-based, inside the expression
	Msg          string
}

func (e *ExprError) Error() string { return e.Msg }

func newExprError(err error) *ExprError {
	var fe *file.Error
	if errors.As(err, &fe) {
		line, col := fe.Line, fe.Column+1
		if line < 1 {
			line = 1
		}
		return &ExprError{Line: line, Column: col, Msg: fe.Message}
	}
	return &ExprError{Line: 1, Column: 1, Msg: err.Error()}
}

type nameCollector struct{ seen map[string]bool }

func (c *nameCollector) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok {
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		c.seen[id.Value] = true
	}
}

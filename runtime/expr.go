package runtime

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/octo-run/octo/runtime/config"
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
	return compileExpr(plainText(src), &exprScope{env: env})
}

// compileExpr compiles an expression written as w, each `${VAR}` in it a
// literal of the variable's value (see source.go), and checks the names it
// reads against sc. Error positions are in w.Written.
func compileExpr(w config.Interpolation, sc *exprScope) (*Expr, error) {
	src, p := newSource(w.Parts, 0)
	if p != nil {
		return nil, p.in(w.Written)
	}
	src.orig = w.Written
	e, p := compileSource(src, sc)
	if p != nil {
		return nil, p.in(w.Written)
	}
	return e, nil
}

// compileSource compiles an expression's source text.
func compileSource(src *source, sc *exprScope) (*Expr, *problem) {
	if strings.TrimSpace(src.text) == "" {
		return nil, src.errorAt(0, "empty expression")
	}
	program, err := expr.Compile(src.text, exprOptions...)
	if err != nil {
		return nil, src.compileError(err)
	}
	e := &Expr{src: src.orig, program: program, env: sc.env}
	names := &nameCollector{}
	root := program.Node()
	ast.Walk(&root, names)
	e.usesBody, e.usesHeaders = names.seen["body"], names.seen["headers"]
	if r, msg := sc.check(names); msg != "" {
		return nil, src.errorAt(runeOffset(src.text, r.at), msg)
	}
	return e, nil
}

// exprOptions compile every expression: the message's names, and the functions octo adds to
// expr-lang's own.
var exprOptions = []expr.Option{
	expr.Env(exprEnv{}),
	// urlEncode(s) is s as a URL query value (a space is +), pathEscape(s) as one segment of a
	// URL path (a slash is %2F): for a url template, whose tags are inserted as they are.
	expr.Function("urlEncode", stringFunc(url.QueryEscape), new(func(string) string)),
	expr.Function("pathEscape", stringFunc(url.PathEscape), new(func(string) string)),
	// pick(m, "a", "b") is the entries of m under those keys that are there and not null: the
	// body of an API call made of some of a tool's arguments, leaving out the optional ones the
	// caller did not give (which {"a": body.a} would send as null).
	expr.Function("pick", pick, new(func(map[string]any, ...string) map[string]any)),
}

func pick(params ...any) (any, error) {
	m, ok := params[0].(map[string]any)
	if !ok && params[0] != nil {
		return nil, fmt.Errorf("pick of %T: want an object", params[0])
	}
	out := make(map[string]any, len(params)-1)
	for _, k := range params[1:] {
		if v, ok := m[k.(string)]; ok && v != nil {
			out[k.(string)] = v
		}
	}
	return out, nil
}

// stringFunc is f as an expr-lang function of one string. A value only known when the message
// comes (body.x) may turn out not to be one: it is written as text first (a number as 3).
func stringFunc(f func(string) string) func(params ...any) (any, error) {
	return func(params ...any) (any, error) {
		s, ok := params[0].(string)
		if !ok {
			s = fmt.Sprint(params[0])
		}
		return f(s), nil
	}
}

// Source returns the expression as written, with its `${VAR}`s.
func (e *Expr) Source() string { return e.src }

// UsesBody reports whether the expression reads body: a setting evaluated where there is no
// body of the user's (before a call's arguments are known) refuses one that does.
func (e *Expr) UsesBody() bool { return e.usesBody }

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
		return nil, evalError(e.src, err)
	}
	return out, nil
}

// evalError is an expression that failed on the message it got (int("x"), a field of a
// string): the server's fault, but its cause is the config's, so the client is told it in a
// few words (expr-lang's message names types and the value at fault, never the expression's
// other inputs), and the log gets the whole error.
func evalError(src string, err error) error {
	cause := err.Error()
	if fe, ok := errors.AsType[*file.Error](err); ok {
		cause = fe.Message
	}
	return &Error{Kind: KindInternal, Msg: fmt.Sprintf("expression %q failed: %s", src, cause),
		Err: fmt.Errorf("expression %q: %w", src, err)}
}

var vmPool = sync.Pool{New: func() any { return new(vm.VM) }}

// ExprError locates a compile error inside an expression's source text.
type ExprError struct {
	Line, Column int // 1-based, inside the expression
	Msg          string
}

func (e *ExprError) Error() string { return e.Msg }

// nameCollector notes the names an expression reads: the top-level ones, and each env variable,
// var and key of the body read by a name written in it (env.HOST, vars["jwt"], body.city).
// expr-lang refuses a let that would take the name env, vars or body, so these always are the
// message's.
type nameCollector struct {
	seen  map[string]bool
	reads []read
}

// read is env.NAME, vars.NAME or body.NAME, the name starting at rune offset at of the source.
type read struct {
	root, name string
	at         int
}

func (c *nameCollector) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		c.seen[n.Value] = true
	case *ast.MemberNode:
		root, isIdent := n.Node.(*ast.IdentifierNode)
		prop, isConst := n.Property.(*ast.StringNode)
		if isIdent && isConst && (root.Value == "env" || root.Value == "vars" || root.Value == "body") {
			c.reads = append(c.reads, read{root: root.Value, name: prop.Value, at: prop.Location().From})
		}
	}
}

// Type is the type of what the expression gives when the types it reads tell it (body.n == 1
// is a bool, "a" + "b" a string), or nil when only running it can (body.flag, vars.x): a block
// that needs a kind of value checks it at build.
func (e *Expr) Type() reflect.Type {
	t := e.program.Node().Type()
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

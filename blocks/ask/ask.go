// Package ask is the ask block: in an mcp-router tool it asks the MCP client a question, its
// user (elicitation: a form, or a link to open) or its model (sampling), and puts the answer in
// vars for the blocks after it.
package ask

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "ask",
		Summary: "asks the MCP client's user (elicit), model (sample) or roots and puts the answer in vars.answer",
		Doc: "In an mcp-router tool, asks the client that called it: elicit shows its user a form " +
			"(message and schema) or a link to open (message and url), sample has its model answer a " +
			"prompt, roots asks for the folders or URIs it works in. The answer, as MCP writes it, lands in vars (into, vars.answer by default): an " +
			"elicitation's {action, content} (action accept, decline or cancel), a sampling's {role, " +
			"content, model, stopReason}, roots' {roots}; the message body goes on unchanged. On 2026-07-28 the call is " +
			"answered input_required and the client sends it again with the answer: the tool's blocks " +
			"run again from the start, so put what must happen once after the asks. The question is named by its var (into: vars.NAME asks NAME), so two asks of one tool write different vars. On older revisions " +
			"the question is a request to the client, on the pipe over stdio or on the call's stream over " +
			"HTTP, waited for at most timeout. A client " +
			"that cannot answer (it did not declare the capability, or has no way to hear the question) " +
			"fails the call with a message that says so; on 2026-07-28 a client that did not declare it " +
			"gets error -32021, as the revision says; with optional the ask goes on without an answer (null).",
		Example: "type: ask\nsettings:\n  elicit:\n    message: 'Delete {{ body.path }}?'\n" +
			"    schema: '{\"type\": \"object\", \"properties\": {\"confirm\": {\"type\": \"boolean\"}}, \"required\": [\"confirm\"]}'\n",
		KeepsBody: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the ask block's settings: one question (elicit, sample or roots), or questions.
type Settings struct {
	question  `yaml:",inline"`
	Questions []question    `yaml:"questions" doc:"Several questions, each written as one ask's (elicit, sample or roots, with its into and optional): on 2026-07-28 asked in one round, on older revisions one after another. Set this or one question."`
	Timeout   time.Duration `yaml:"timeout" default:"10m" min:">0" max:"1h" doc:"How long to wait for each answer on the revisions before 2026-07-28, where a question is a request; past it the call fails. On 2026-07-28 the client answers in a new round, in its own time."`
}

// question is one thing the ask block asks.
type question struct {
	Elicit   *elicitSettings `yaml:"elicit" doc:"Ask the client's user: a form (message and schema), or a link to open (message and url)."`
	Sample   *sampleSettings `yaml:"sample" doc:"Ask the client's model (sampling/createMessage): a prompt, a system prompt, at most maxTokens."`
	Roots    bool            `yaml:"roots" doc:"Ask the client for its roots (roots/list): the folders or URIs it works in, {roots: [{uri, name}]}."`
	Optional bool            `yaml:"optional" doc:"Go on without an answer (vars.NAME null) when the client cannot answer: it did not declare the capability, has no way to hear the question, or answers it with an error (how a client says it cannot over stateless HTTP before 2026-07-28, where the server does not know what it declared). Without it the call fails (on 2026-07-28, error -32021)."`
	Into     string          `yaml:"into" default:"vars.answer" doc:"Where the answer goes: vars.NAME." example:"vars.confirm"`
}

type elicitSettings struct {
	Message runtime.Template  `yaml:"message" octo:"required" doc:"What the user is asked, a template over body, vars, headers and env." example:"Delete {{ body.path }}?"`
	Schema  mcp.SchemaSetting `yaml:"schema" doc:"The form: a JSON Schema of an object whose properties are strings, numbers, integers, booleans or enums (as JSON text or a YAML mapping). Set this or url."`
	URL     *runtime.Template `yaml:"url" doc:"A link the user is asked to open (elicitation mode url), a template; the client says whether they agreed, not what they did there. Set this or schema." example:"https://example.com/connect?user={{ body.user }}"`
}

type sampleSettings struct {
	Prompt       runtime.Template  `yaml:"prompt" octo:"required" doc:"The user message the model answers, a template." example:"Summarize: {{ body.text }}"`
	SystemPrompt *runtime.Template `yaml:"systemPrompt" doc:"The system prompt the client may use, a template."`
	MaxTokens    int               `yaml:"maxTokens" default:"1000" min:"1" doc:"The most tokens the model may answer with."`
}

// SetsVars names the vars the answers land in (not those whose into is malformed, which the
// build reports).
func (s *Settings) SetsVars() []string {
	var names []string
	for _, q := range s.all() {
		if name, ok := runtime.IntoVar(q.Into); ok {
			names = append(names, name)
		}
	}
	return names
}

// all are the questions written: questions, else the one at the top.
func (s *Settings) all() []*question {
	if len(s.Questions) == 0 {
		return []*question{&s.question}
	}
	qs := make([]*question, len(s.Questions))
	for i := range s.Questions {
		qs[i] = &s.Questions[i]
	}
	return qs
}

// Block asks the client its questions.
type Block struct {
	asks    []*ask
	timeout time.Duration
}

// ask is one built question.
type ask struct {
	key, method, into string
	optional          bool
	elicit            *elicitSettings
	sample            *sampleSettings
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	if len(s.Questions) > 0 && count(s.Elicit != nil, s.Sample != nil, s.Roots) > 0 {
		b.Errorf(s, "an ask has either one question (elicit, sample or roots) or questions, not both")
	}
	blk := &Block{timeout: s.Timeout}
	seen := map[string]bool{}
	for _, q := range s.all() {
		a := buildQuestion(b, q)
		if a.into != "" && seen[a.into] {
			b.Errorf(&q.Into, "into %q: another question's answer goes there too; give each its own var", q.Into)
		}
		seen[a.into] = true
		a.key = a.into // what a 2026-07-28 client answers it by, in inputResponses
		blk.asks = append(blk.asks, a)
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// buildQuestion checks one question and builds it.
func buildQuestion(b *runtime.Build, q *question) *ask {
	into, ok := runtime.IntoVar(q.Into)
	if !ok {
		b.Errorf(&q.Into, "into %q: expected vars.NAME (NAME letters, digits and _, not starting with a digit)", q.Into)
	}
	a := &ask{into: into, optional: q.Optional, elicit: q.Elicit, sample: q.Sample}
	switch {
	case count(q.Elicit != nil, q.Sample != nil, q.Roots) != 1:
		b.Errorf(q, "an ask needs exactly one of elicit (ask the user), sample (ask the model) and roots (ask for the client's roots)")
	case q.Roots:
		a.method = "roots/list"
	case q.Elicit != nil:
		a.method = "elicitation/create"
		e := q.Elicit
		switch {
		case e.Schema.Set() == (e.URL != nil):
			b.Errorf(e, "elicit needs exactly one of schema (a form) and url (a link to open)")
		case e.Schema.Err != nil:
			b.Errorf(&e.Schema, "schema: %v", e.Schema.Err)
		case e.Schema.Schema != nil:
			if problem := formProblem(e.Schema.Raw()); problem != "" {
				b.Errorf(&e.Schema, "schema: %s", problem)
			}
		}
	default:
		a.method = "sampling/createMessage"
	}
	return a
}

// Process asks the client each question and puts the answers in vars. On 2026-07-28 a question
// whose answer is not here yet does not stop the others: they are all asked in this round.
func (blk *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	asker := runtime.ClientAskerOf(ctx)
	if asker == nil {
		return nil, runtime.Errorf(runtime.KindInvalid, "an ask block asks an MCP client, and this run has none: put it in an mcp-router tool")
	}
	awaiting := false
	for _, a := range blk.asks {
		err := a.run(ctx, asker, m, blk.timeout)
		if errors.Is(err, runtime.ErrAwaitingClient) {
			awaiting = true
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	if awaiting {
		return nil, runtime.ErrAwaitingClient
	}
	return m, nil
}

// run asks one question and puts its answer in vars.
func (a *ask) run(ctx context.Context, asker runtime.ClientAsker, m *runtime.Message, timeout time.Duration) error {
	params, err := a.params(m)
	if err != nil {
		return err
	}
	askCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := asker.Ask(askCtx, a.key, a.method, params)
	if err != nil && a.optional && errors.Is(err, runtime.ErrClientCannotAnswer) {
		m.SetVar(a.into, nil)
		return nil
	}
	if err != nil {
		if ctx.Err() == nil && askCtx.Err() != nil {
			return runtime.Errorf(runtime.KindTimeout, "The client did not answer %s within %s", a.method, timeout)
		}
		return err
	}
	answer, err := jsonv.Decode(raw)
	if err != nil {
		return runtime.Errorf(runtime.KindUpstream, "the client's answer to %s is not JSON: %v", a.method, err)
	}
	if err := a.check(answer); err != nil {
		return err
	}
	m.SetVar(a.into, answer)
	return nil
}

// params renders the question.
func (a *ask) params(m *runtime.Message) (map[string]any, error) {
	if a.elicit == nil && a.sample == nil {
		return map[string]any{}, nil // roots/list
	}
	if s := a.sample; s != nil {
		prompt, err := s.Prompt.Render(m)
		if err != nil {
			return nil, err
		}
		p := map[string]any{"maxTokens": s.MaxTokens,
			"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}}}
		if s.SystemPrompt != nil {
			if p["systemPrompt"], err = s.SystemPrompt.Render(m); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	e := a.elicit
	message, err := e.Message.Render(m)
	if err != nil {
		return nil, err
	}
	if e.URL == nil {
		return map[string]any{"message": message, "requestedSchema": e.Schema.Raw()}, nil
	}
	url, err := e.URL.Render(m)
	if err != nil {
		return nil, err
	}
	return map[string]any{"mode": "url", "message": message, "url": url, "elicitationId": rand.Text()}, nil
}

// check refuses an answer that is not what the question allows: an elicitation's action, and
// an accepted form's content against its schema.
func (a *ask) check(answer any) error {
	obj, ok := answer.(map[string]any)
	if !ok {
		return runtime.Errorf(runtime.KindUpstream, "the client answered %s with %s, not an object", a.method, kindOf(answer))
	}
	if a.elicit == nil {
		return nil
	}
	switch obj["action"] {
	case "accept":
		if a.elicit.Schema.Schema == nil {
			return nil
		}
		content, _ := obj["content"].(map[string]any)
		if content == nil {
			content = map[string]any{}
		}
		if err := a.elicit.Schema.ValidateValue(content); err != nil {
			return runtime.Errorf(runtime.KindInvalid, "the user's answer does not match the form: %v", err)
		}
	case "decline", "cancel":
	default:
		return runtime.Errorf(runtime.KindUpstream, "the client answered elicitation/create with action %v: expected accept, decline or cancel", obj["action"])
	}
	return nil
}

// formProblem says why schema is not a form MCP elicitation allows (an object of flat
// properties), "" when it is one.
func formProblem(schema json.RawMessage) string {
	var form struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &form); err != nil || form.Type != "object" {
		return `an elicitation form is an object: {"type": "object", "properties": {…}}`
	}
	for name, p := range form.Properties {
		var prop struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(p, &prop)
		switch prop.Type {
		case "string", "number", "integer", "boolean":
		case "array": // a multi-select enum
		case "":
			return fmt.Sprintf("property %q has no type: a form asks for a string, number, integer, boolean or an enum", name)
		default:
			return fmt.Sprintf("property %q is of type %q, which a form cannot ask: use string, number, integer, boolean or an enum", name, prop.Type)
		}
	}
	return ""
}

// count is how many of set are true.
func count(set ...bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

// kindOf names the JSON kind of a decoded value, for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "a number"
}

var _ runtime.Block = (*Block)(nil)

// Package aiagent is the ai-agent block: it sends the message to a chat model with tools that
// are flow branches and runs the tool-call loop, bounded, until the model answers. Providers
// speak OpenAI-compatible chat completions or Anthropic messages over HTTP (provider.go,
// openai.go, anthropic.go); the loop and the tools know no provider's wire format.
package aiagent

import (
	"context"
	"net/http"
	"time"

	"github.com/octo-run/octo/blocks/httprequest"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "ai-agent",
		Summary: "asks a chat model, with tools that are flow branches, and leaves its answer as the body",
		Doc: "Sends prompt (a template over body, vars and env; default: the body as text) with " +
			"system to model, through an OpenAI-compatible chat completions API or the Anthropic " +
			"messages API at baseUrl with apiKey (write ${NAME} to take it from the environment). " +
			"When the model calls tools, each call runs that tool's branch with the arguments as " +
			"the body (checked against inputSchema first) and its final body goes back to the model " +
			"(a failure as an error it can act on); this repeats at most maxIterations times. The " +
			"model's final text becomes the body (decoded with result: json) and vars.agent holds " +
			"the transcript and the number of model calls. A caller that asked for progress hears " +
			"each step as it starts (a model call, a tool call). Tools are declared as a router's are, " +
			"but a model sees only name, description and inputSchema: title, annotations and " +
			"outputSchema are MCP-only and refused when the flow is built.",
		Example: "type: ai-agent\nsettings:\n  provider: openai\n  baseUrl: http://127.0.0.1:11434/v1\n" +
			"  model: llama3.1\n  prompt: 'Plan a day in {{ body.city }}.'\n  tools:\n" +
			"    - name: get_weather\n      description: The weather in a city.\n" +
			"      inputSchema: '{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}'\n" +
			"      process:\n        - type: set-payload\n          settings: { value: '{\"forecast\": \"sunny\"}' }\n",
		Build: runtime.BlockFunc(build),
	})
}

// Settings are the ai-agent block's settings.
type Settings struct {
	Provider      string            `yaml:"provider" default:"openai" enum:"openai,anthropic" doc:"The API the model server speaks. openai: chat completions (OpenAI and the many servers compatible with it, local ones too). anthropic: the messages API."`
	BaseURL       string            `yaml:"baseUrl" doc:"The API's base URL, without /chat/completions or /messages. Default: https://api.openai.com/v1 or https://api.anthropic.com/v1." example:"http://127.0.0.1:11434/v1"`
	APIKey        string            `yaml:"apiKey" doc:"The API key, sent as a bearer token (openai) or x-api-key (anthropic); write ${NAME} to take it from the environment. Empty: none (a local server)." example:"${OPENAI_API_KEY}"`
	Model         string            `yaml:"model" octo:"required" doc:"The model to ask." example:"gpt-4o-mini"`
	System        *runtime.Template `yaml:"system" doc:"The system prompt: a template over body, vars and env."`
	Prompt        *runtime.Template `yaml:"prompt" doc:"The user's message: a template over body, vars and env. Default: the body, a string as it is, anything else as JSON." example:"Plan a day in {{ body.city }}."`
	Tools         []ToolSettings    `yaml:"tools" doc:"The tools the model may call, each a branch run with the call's arguments as the body; its final body is the result the model reads."`
	MaxIterations int               `yaml:"maxIterations" default:"8" min:"1" max:"50" doc:"How many times the model is asked at most; a model still calling tools after that fails the block (kind upstream)."`
	MaxTokens     int               `yaml:"maxTokens" default:"1024" min:"1" max:"200000" doc:"The most tokens one answer of the model may take."`
	Timeout       time.Duration     `yaml:"timeout" default:"60s" min:">0" max:"10m" doc:"The longest one model call may take."`
	ToolTimeout   time.Duration     `yaml:"toolTimeout" default:"30s" min:">0" max:"10m" doc:"The longest one tool call may take; past it the model reads that the tool timed out."`
	Result        string            `yaml:"result" default:"text" enum:"text,json" doc:"What the final answer becomes. text: the body is the model's text. json: the text decoded as JSON (a model that answers otherwise fails the block)."`
}

// ToolSettings declare one tool as a router's tool is declared; the MCP-only keys are refused.
type ToolSettings struct {
	mcp.ToolFields `yaml:",inline"`
	Process        runtime.Branch `yaml:"process" octo:"required" answers:"the tool's result" doc:"The blocks that answer a call, run with the arguments as the body; a string body is the result's text, anything else its JSON."`
}

// Body is the arguments the model calls the tool with, as its inputSchema declares them.
func (c *ToolSettings) Body() *runtime.BodyKeys { return mcpmsg.Arguments(&c.ToolFields) }

// SetsVars says the blocks after an ai-agent may read vars.agent.
func (*Settings) SetsVars() []string { return []string{"agent"} }

// Block is a built ai-agent block.
type Block struct {
	provider provider
	model    string
	tokens   int
	system   *runtime.Template
	prompt   *runtime.Template
	tools    []*tool
	byName   map[string]*tool
	maxIter  int
	timeout  time.Duration
	toolWait time.Duration
	json     bool
	shared   *runtime.Shared
	hc       *http.Client
	release  runtime.Release // the hold on octo test's transport, when sending through it
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	blk := &Block{model: s.Model, tokens: s.MaxTokens, system: s.System, prompt: s.Prompt, maxIter: s.MaxIterations, timeout: s.Timeout,
		toolWait: s.ToolTimeout, json: s.Result == "json", shared: b.Shared(), byName: map[string]*tool{}}
	blk.provider = buildProvider(b, s)
	blk.tools = buildTools(b, s, blk.byName)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// Start makes the block's HTTP client. Under `octo test` the model is asked through the
// transport the case's stubs answer (the one http-request sends through), so a flow with an
// ai-agent is tested offline: the case scripts the model's answers as it scripts an API's.
func (blk *Block) Start(context.Context) error {
	if t, release, ok := runtime.Held[httprequest.TestTransport](blk.shared, httprequest.TestTransportKey); ok {
		blk.hc, blk.release = &http.Client{Transport: t}, release
		return nil
	}
	blk.hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	return nil
}

// Stop closes its idle connections, or gives the test transport back.
func (blk *Block) Stop(ctx context.Context) error {
	if blk.release != nil {
		return blk.release(ctx)
	}
	if blk.hc != nil {
		blk.hc.CloseIdleConnections()
	}
	return nil
}

var (
	_ runtime.Block      = (*Block)(nil)
	_ runtime.Starter    = (*Block)(nil)
	_ runtime.Stopper    = (*Block)(nil)
	_ runtime.VarsSetter = (*Settings)(nil)
)

package agenttools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
	mcpclient "github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// callArgs are call_server's arguments.
type callArgs struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Resource  string          `json:"resource"`
	Prompt    string          `json:"prompt"`
	Arguments json.RawMessage `json:"arguments"`
}

// Limits of call_server: how long one request to a mock may take (a tool's delayMs may be up
// to an hour; the agent can cancel sooner), and how long ending the session may take.
const (
	callTimeout  = 5 * time.Minute
	closeTimeout = 5 * time.Second
)

// callView is call_server's answer: what the server answered, as the protocol's result or
// error.
type callView struct {
	Server string         `json:"server"`
	Method string         `json:"method"`
	Result any            `json:"result,omitempty"`
	Error  *jsonrpc.Error `json:"error,omitempty"`
}

func (t *Tools) callServer(c Call) (op, error) {
	var a callArgs
	if err := decode(c.Args, &a); err != nil {
		return op{}, err
	}
	method, target, err := a.method()
	if err != nil {
		return op{}, err
	}
	var promptArgs map[string]string
	if a.Prompt != "" && len(a.Arguments) > 0 {
		if err := json.Unmarshal(a.Arguments, &promptArgs); err != nil {
			return op{}, argError("arguments", "a prompt's arguments are text: each value must be a string")
		}
	}
	summary := fmt.Sprintf("%s %q %s %q", CallServer, a.Server, method, target)
	return op{summary: summary, run: func(ctx context.Context) *mcp.CallToolResult {
		s, err := t.find(a.Server)
		if err != nil {
			return errResult(err)
		}
		if s.Kind == workspace.KindHTTP {
			return errResult(fmt.Errorf("%q is an HTTP API, and call_server speaks MCP: send it HTTP requests (its routes are under %s when it runs)", s.Name, cmp.Or(s.URL, "its URL")))
		}
		if !s.Running {
			return errResult(fmt.Errorf("%q is not running: start it with start_server first", s.Name))
		}
		client, err := mcpclient.Dial(ctx, mcpclient.Options{URL: s.URL, Transport: mcpclient.TransportStreamable,
			ClientInfo: mcp.Implementation{Name: "octo", Title: "Octo call_server for " + agentOr(c.Agent), Version: "agent-tools"},
			Timeout:    callTimeout})
		if err != nil {
			return errResult(fmt.Errorf("could not connect to %q at %s: %w", s.Name, s.URL, err))
		}
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
			defer cancel()
			_ = client.Close(cctx)
		}()
		v := callView{Server: s.Name, Method: method}
		v.Result, err = a.send(ctx, client, promptArgs, c.Progress)
		var rpc *jsonrpc.Error
		switch {
		case errors.As(err, &rpc):
			v.Error = rpc // the server's answer, worth reading: an unknown tool, a missing argument
		case err != nil:
			return errResult(fmt.Errorf("%s on %q: %w", method, s.Name, err))
		}
		return jsonResult(v)
	}}, nil
}

// method says which request the arguments ask for, and of what.
func (a *callArgs) method() (method, target string, err error) {
	n := 0
	for _, s := range []string{a.Tool, a.Resource, a.Prompt} {
		if s != "" {
			n++
		}
	}
	switch {
	case n != 1:
		return "", "", errors.New(`arguments: give exactly one of "tool", "resource" and "prompt"`)
	case a.Resource != "" && len(a.Arguments) > 0:
		return "", "", argError("arguments", "a resource is read by its URI alone; arguments go with a tool or a prompt")
	case a.Tool != "":
		return "tools/call", a.Tool, nil
	case a.Resource != "":
		return "resources/read", a.Resource, nil
	}
	return "prompts/get", a.Prompt, nil
}

// send makes the request and returns the server's result.
func (a *callArgs) send(ctx context.Context, c *mcpclient.Client, promptArgs map[string]string, progress func(float64, float64, string)) (any, error) {
	switch {
	case a.Tool != "":
		var opts mcpclient.CallOptions
		if progress != nil {
			opts.Progress = func(p mcpclient.Progress) { progress(p.Progress, p.Total, p.Message) }
		}
		return c.CallTool(ctx, a.Tool, a.Arguments, opts)
	case a.Resource != "":
		contents, err := c.ReadResource(ctx, a.Resource)
		if err != nil {
			return nil, err
		}
		return struct {
			Contents []mcp.ResourceContents `json:"contents"`
		}{contents}, nil
	}
	return c.GetPrompt(ctx, a.Prompt, promptArgs)
}

func agentOr(name string) string {
	if name == "" {
		return "an agent"
	}
	return name
}

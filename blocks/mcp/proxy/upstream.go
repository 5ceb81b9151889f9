package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mcp/access"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// maxRetry bounds the doubling wait between dials of an upstream that stays down.
const maxRetry = 30 * time.Second

// upstream is one server behind the gateway: its session while it is up, and what it
// offers as the gateway serves it (names prefixed, tools filtered).
type upstream struct {
	set    *upstreamSettings
	rule   *access.Rule  // who may see and call its tools; nil: anyone
	limit  *access.Limit // how often each caller may call each; nil: unlimited
	logger *slog.Logger
	// changed tells the gateway's clients that its lists changed.
	changed func(kinds ...string)
	// suspect asks the keeper to ping now (doubt).
	suspect chan struct{}
	// tried is closed once the first dial answered or failed.
	tried     chan struct{}
	triedOnce sync.Once

	mu        sync.Mutex
	client    *client.Client // nil while down
	tools     []mcp.Tool     // as served
	toolNames map[string]string
	resources []mcp.Resource
	templates []mcp.ResourceTemplate
	prompts   []mcp.Prompt
	promptOf  map[string]string
}

// capabilities are what the gateway declares to its upstreams: it passes their questions on
// to the caller of the tool that asks.
var capabilities = json.RawMessage(`{"elicitation":{},"sampling":{},"roots":{}}`)

// keep keeps the upstream's session: it dials, reads what it offers, serves it until the
// session ends, and dials again after a wait that doubles while it stays down. An upstream that
// is down is out of the lists, never the others' trouble.
func (u *upstream) keep(ctx context.Context, retry, ping time.Duration) {
	wait := retry
	down := false
	for ctx.Err() == nil {
		c, err := client.Dial(ctx, u.options())
		if err == nil {
			err = u.read(ctx, c)
			if err != nil {
				_ = c.Close(context.WithoutCancel(ctx))
			}
		}
		u.triedOnce.Do(func() { close(u.tried) })
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !down { // once per outage; the retries say nothing new
				u.logger.Warn("upstream down: out of the lists until it answers again", "upstream", u.set.Name, "err", err, "retry", wait)
				down = true
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
			wait = min(wait*2, maxRetry)
			continue
		}
		down, wait = false, retry
		u.logger.Info("upstream up", "upstream", u.set.Name, "tools", len(u.tools), "resources", len(u.resources)+len(u.templates), "prompts", len(u.prompts))
		u.changed("tools", "resources", "prompts")
		err = u.watch(ctx, c, ping)
		u.drop(c)
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = c.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		u.logger.Warn("upstream down: out of the lists until it answers again", "upstream", u.set.Name, "err", err, "retry", retry)
		down = true
		u.changed("tools", "resources", "prompts")
	}
}

// watch waits until session c ends: its connection closed (a stdio server exited, a legacy
// stream ended), or a ping, sent every interval and when a call could not reach it, failed.
// Over Streamable HTTP nothing else says that a server went away.
func (u *upstream) watch(ctx context.Context, c *client.Client, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.Done():
			return c.Err()
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-u.suspect:
		}
		pctx, cancel := context.WithTimeout(ctx, min(interval, u.set.Timeout))
		err := c.Ping(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
}

// doubt asks the keeper to ping the upstream now: a call could not reach it.
func (u *upstream) doubt() {
	select {
	case u.suspect <- struct{}{}:
	default:
	}
}

func (u *upstream) options() client.Options {
	o := client.Options{URL: u.set.URL, Command: u.set.Command, Transport: client.Transport(u.set.Transport),
		ClientInfo: mcp.Implementation{Name: "octo-gateway", Version: "1"}, Capabilities: capabilities,
		Timeout: u.set.Timeout, Logger: u.logger.With("upstream", u.set.Name)}
	if len(u.set.Command) > 0 {
		o.Transport = client.TransportStdio
	}
	for k, v := range u.set.Env {
		o.Env = append(o.Env, k+"="+v)
	}
	if len(u.set.Headers) > 0 {
		o.Headers = http.Header{}
		for k, v := range u.set.Headers {
			o.Headers.Set(k, v)
		}
	}
	o.OnListChanged = func(list string) {
		// Read again off the goroutine that reads the connection, which the lists' answers
		// come back on.
		go u.relist(list)
	}
	return o
}

// read reads what c offers and makes it the upstream's session.
func (u *upstream) read(ctx context.Context, c *client.Client) error {
	caps := c.InitializeResult().Capabilities
	var (
		tools     []mcp.Tool
		resources []mcp.Resource
		templates []mcp.ResourceTemplate
		prompts   []mcp.Prompt
		err       error
	)
	if caps.Tools != nil {
		if tools, err = c.ListTools(ctx); err != nil {
			return err
		}
	}
	if caps.Resources != nil {
		if resources, err = c.ListResources(ctx); err != nil {
			return err
		}
		if templates, err = c.ListResourceTemplates(ctx); err != nil && !isMethodNotFound(err) {
			return err
		}
	}
	if caps.Prompts != nil {
		if prompts, err = c.ListPrompts(ctx); err != nil {
			return err
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.client = c
	u.setTools(tools)
	u.resources, u.templates = resources, templates
	u.setPrompts(prompts)
	return nil
}

// relist reads one list again after the upstream said it changed, and tells the gateway's
// clients.
func (u *upstream) relist(list string) {
	c := u.current()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), u.set.Timeout)
	defer cancel()
	var err error
	switch list {
	case "tools":
		var tools []mcp.Tool
		if tools, err = c.ListTools(ctx); err == nil {
			u.mu.Lock()
			u.setTools(tools)
			u.mu.Unlock()
		}
	case "resources":
		var rs []mcp.Resource
		var ts []mcp.ResourceTemplate
		if rs, err = c.ListResources(ctx); err == nil {
			if ts, err = c.ListResourceTemplates(ctx); isMethodNotFound(err) {
				err = nil
			}
		}
		if err == nil {
			u.mu.Lock()
			u.resources, u.templates = rs, ts
			u.mu.Unlock()
		}
	case "prompts":
		var ps []mcp.Prompt
		if ps, err = c.ListPrompts(ctx); err == nil {
			u.mu.Lock()
			u.setPrompts(ps)
			u.mu.Unlock()
		}
	}
	if err != nil {
		u.logger.Warn("reading an upstream's changed list failed", "upstream", u.set.Name, "list", list, "err", err)
		return
	}
	u.changed(list)
}

// setTools keeps the tools the filter serves, their names prefixed; u.mu is held.
func (u *upstream) setTools(tools []mcp.Tool) {
	u.tools, u.toolNames = nil, map[string]string{}
	for _, t := range tools {
		if !u.set.Tools.serves(t.Name) {
			continue
		}
		served := t
		served.Name = u.set.prefix() + t.Name
		u.tools = append(u.tools, served)
		u.toolNames[served.Name] = t.Name
	}
}

// setPrompts keeps the prompts, their names prefixed; u.mu is held.
func (u *upstream) setPrompts(prompts []mcp.Prompt) {
	u.prompts, u.promptOf = nil, map[string]string{}
	for _, p := range prompts {
		served := p
		served.Name = u.set.prefix() + p.Name
		u.prompts = append(u.prompts, served)
		u.promptOf[served.Name] = p.Name
	}
}

// drop forgets session c, if it is still the upstream's.
func (u *upstream) drop(c *client.Client) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.client == c {
		u.client = nil
		u.tools, u.toolNames, u.resources, u.templates, u.prompts, u.promptOf = nil, nil, nil, nil, nil, nil
	}
}

// current is the upstream's session, nil while it is down.
func (u *upstream) current() *client.Client {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.client
}

func isMethodNotFound(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound
}

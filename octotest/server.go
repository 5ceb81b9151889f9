package octotest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Server is an MCP server that octo test runs a folder of cases against, whatever it is written
// in: at a URL (Streamable HTTP), or a command it starts and talks to over its standard streams,
// as a client that runs a local server does. Each case has a session of its own: a new one
// over HTTP, a new process over stdio.
type Server struct {
	URL     string
	Command []string
	// sse is set when the server at URL speaks the legacy HTTP+SSE transport (legacySSE).
	sse bool
}

func (s *Server) String() string {
	if s.URL != "" {
		return s.URL
	}
	words := make([]string, len(s.Command))
	for i, w := range s.Command {
		words[i] = w
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$") {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}

// findTransport settles, once a run, which HTTP transport the server at URL speaks, and says
// so when it is the legacy one.
func (s *Server) findTransport(ctx context.Context, out io.Writer) {
	if s.URL == "" {
		return
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	if s.sse = legacySSE(ctx, &http.Client{Transport: tr}, s.URL); s.sse {
		fmt.Fprintf(out, "%s speaks the legacy HTTP+SSE transport (2024-11-05): each case opens an event stream\n", s.URL)
	}
}

// serverCasesDir is where the cases against a server are: path's tests/ when it has one, else
// path itself.
func serverCasesDir(path string) string {
	if info, err := os.Stat(filepath.Join(path, Dir)); err == nil && info.IsDir() {
		return filepath.Join(path, Dir)
	}
	return path
}

// againstServer runs an mcp case against r.server. What only a config's flows have (a plain
// request, stubs for their HTTP calls, the vars a flow left) fails the case, naming the key.
func (r *runner) againstServer(ctx context.Context, c *loaded, o *outcome) {
	if misfits := serverMisfits(r.server, c); len(misfits) > 0 {
		o.failures = append(o.failures, misfits...)
		return
	}
	if c.MCP.Session != "" {
		r.inSession(ctx, c, o)
		return
	}
	sc := newScript(c)
	if r.server.URL != "" {
		tr := &http.Transport{DisableKeepAlives: true}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		if r.server.sse {
			conn, err := openSSE(ctx, hc, r.server.URL, c.MCP.Headers)
			if err != nil {
				o.failf("%v", err)
				return
			}
			defer conn.close()
			conn.script = sc
			r.mcpCase(ctx, newClient(conn, sc, c), c, nil, o)
			return
		}
		conn := &httpConn{hc: hc, url: r.server.URL, headers: c.MCP.Headers, script: sc}
		r.mcpCase(ctx, newClient(conn, sc, c), c, nil, o)
		return
	}
	p, err := openPipe(ctx, "the server", processLines(r.server.Command, c.Env, &o.log))
	if err != nil {
		o.failf("%v", err)
		return
	}
	defer p.close(ctx)
	r.mcpCase(ctx, newClient(lineConn{p: p, script: sc}, sc, c), c, nil, o)
}

// serverMisfits are the keys of c that mean nothing against a server of its own.
func serverMisfits(s *Server, c *loaded) []string {
	var out []string
	misfit := func(set bool, key, why string) {
		if set {
			out = append(out, key+": "+why)
		}
	}
	misfit(c.Request != nil, "request", "a plain request goes to a config's flow; against --server write mcp cases")
	misfit(len(c.Stubs) > 0, "stubs", "stubs stand in for a config's HTTP calls; a server under --server makes its own")
	misfit(c.Expect.Vars != nil, "expect.vars", "vars are what a config's flow left; check the answer")
	if c.MCP != nil {
		misfit(c.MCP.Flow != "", "mcp.flow", "the cases go to the server under --server, not to a config's flow")
		misfit(c.MCP.Server != "", "mcp.server", "the cases go to the server under --server, not to a workspace's")
		misfit(c.MCP.Path != "", "mcp.path", "--server gives the whole URL")
		misfit(s.URL == "" && len(c.MCP.Headers) > 0, "mcp.headers", "a server over stdio gets no headers: give it env")
	}
	misfit(s.URL != "" && len(c.Env) > 0, "env", "a server at a URL runs already: env is for one octo test starts (--server -- COMMAND)")
	return out
}

// process is a server octo test started as a command, its standard error kept for the report.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// processLines starts command with env (NAME: value of the case) beside the process
// environment, its standard error written to stderr.
func processLines(command []string, env map[string]string, stderr io.Writer) startLines {
	return func(_ context.Context, in io.Reader, out io.Writer) (lineServer, error) {
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Stdout, cmd.Stderr = out, stderr
		// The input is copied by a goroutine of ours, not exec's: exec's would wait on the
		// case's pipe after the process exited, and hold Wait (and the case) until the
		// case ends its input.
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		cmd.Env = os.Environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		// The pipes stay ours: once the process is gone, waiting for their copies is bounded.
		cmd.WaitDelay = time.Second
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start the server: %v", err)
		}
		go func() {
			_, _ = io.Copy(stdin, in)
			_ = stdin.Close()
		}()
		p := &process{cmd: cmd, done: make(chan struct{})}
		go func() {
			err := cmd.Wait() // once it returns, all the process wrote has been copied out
			if err != nil {
				fmt.Fprintf(stderr, "octo test: the server exited: %v\n", err)
			}
			// Its output ends with it, so a case waiting for an answer hears so at once
			// rather than at its timeout.
			if c, ok := out.(io.Closer); ok {
				_ = c.Close()
			}
			close(p.done)
		}()
		return p, nil
	}
}

// Done is closed when the process has exited (its input ended).
func (p *process) Done() <-chan struct{} { return p.done }

// Stop waits for the process to exit until ctx ends, then kills it.
func (p *process) Stop(ctx context.Context) error {
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-p.done
		return ctx.Err()
	}
}

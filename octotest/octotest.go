// Package octotest runs the YAML test cases beside a config (`octo test`): each case builds the
// config as `octo run` would (the same loader, builder and diagnostics), serves the connector
// of the flow it is for on a loopback port of its own (an http connector) or on a pair of pipes
// (a stdio connector), sends an HTTP request, a line, or MCP requests through it, answers the
// flow's http-request calls from stubs in place of the network, and checks the answer. It owns
// the test file format (format.go) and its schema, and registers the command; it knows the http
// connector only as an http.Handler, the stdio connector by its streams, and MCP only as a
// client.
package octotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
)

// Options tune a run.
type Options struct {
	// Run selects the cases whose name it matches; nil runs every case.
	Run *regexp.Regexp
	// Verbose prints each case's answer and service log, passed or not.
	Verbose bool
	// Out gets the report.
	Out io.Writer
	// LookupEnv reads the process environment; a case's env wins over it.
	LookupEnv func(string) (string, bool)
	// Stdio serves the config as `octo run --stdio` does: the flow with the mcp-router (or
	// mcp-mock) on a stdio connector, so its cases go over a pipe.
	Stdio bool
	// Server, when set, is the MCP server the cases talk to instead of a config's flows.
	Server *Server
	// Update writes what each mcp case was answered into its expect (body, or error, and
	// isError) where it differs, in place of failing on it.
	Update bool
}

// Summary counts the cases of a run and keeps each one's result, for reports.
type Summary struct {
	Passed, Failed int
	// Updated counts the cases --update wrote.
	Updated int
	Results []Result
}

// Result is how one case ended.
type Result struct {
	File     string
	Line     int
	Name     string
	Duration time.Duration
	// Failures say what did not hold; none when the case passed.
	Failures []string
	// Answer is what the case got (a body, an MCP result or error), Log what the service or
	// server logged meanwhile.
	Answer, Log string
}

// runner runs the cases of one config.
type runner struct {
	path   string
	cfg    *config.Config // as the process environment makes it; nil for a workspace, or when it needs a case's env
	lookup func(string) (string, bool)
	stdio  bool    // Options.Stdio
	server *Server // Options.Server
	update bool    // Options.Update
	// ctx is the run's: what outlives a case (a shared session) ends with it.
	ctx context.Context
	// sessions are the shared sessions open (mcp.session), by file and name.
	sessions map[string]*sharedSession
	// servers are a workspace's saved servers, each a config, by name.
	servers map[string]*config.Config
}

// Run runs the test cases beside the config at path. A config or a test file that cannot be
// read or built is an error, every problem in it at once (config.Diags); failed cases are not
// errors: Summary counts them.
func Run(ctx context.Context, path string, opts Options) (Summary, error) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	r := &runner{path: path, lookup: opts.LookupEnv, stdio: opts.Stdio, server: opts.Server, update: opts.Update,
		ctx: ctx, sessions: map[string]*sharedSession{}}
	defer r.closeSessions()
	var (
		dir   string
		cases []*loaded
		err   error
	)
	if opts.Server != nil {
		dir = serverCasesDir(path)
		if cases, err = load(dir); err != nil {
			return Summary{}, err
		}
		opts.Server.findTransport(ctx, opts.Out)
	} else {
		dir = TestsDir(path)
		cases, err = load(dir)
		// The config's problems and the test files' are reported together, config first.
		if cerr := r.prepare(cases); cerr != nil || err != nil {
			var cds, tds config.Diags
			if cerr != nil && !errors.As(cerr, &cds) || err != nil && !errors.As(err, &tds) {
				return Summary{}, errors.Join(cerr, err)
			}
			return Summary{}, append(cds, tds...)
		}
	}
	if len(cases) == 0 {
		return Summary{}, fmt.Errorf("%s: no test cases: write them in %s/*.yaml (see octo schema test)", path, dir)
	}
	var sum Summary
	edits := map[string]map[int]*snapshot{} // by file, by case
	for _, c := range cases {
		if opts.Run != nil && !opts.Run.MatchString(c.Name) {
			continue
		}
		start := time.Now()
		o := r.runCase(ctx, c)
		took := time.Since(start).Round(time.Millisecond)
		sum.Results = append(sum.Results, Result{File: c.file, Line: c.line, Name: c.Name, Duration: took,
			Failures: o.failures, Answer: o.body, Log: o.log.String()})
		if len(o.failures) == 0 {
			sum.Passed++
			fmt.Fprintf(opts.Out, "ok   %s: %s (%s)\n", c.where(), c.Name, took)
		} else {
			sum.Failed++
			fmt.Fprintf(opts.Out, "FAIL %s: %s (%s)\n", c.where(), c.Name, took)
			for _, f := range o.failures {
				fmt.Fprintf(opts.Out, "     %s\n", f)
			}
		}
		if o.snap != nil {
			fmt.Fprintf(opts.Out, "     updated: expect.%s\n", o.snap.key())
			if edits[c.file] == nil {
				edits[c.file] = map[int]*snapshot{}
			}
			edits[c.file][c.index] = o.snap
		}
		if opts.Verbose || len(o.failures) > 0 {
			report(opts.Out, o, opts.Verbose)
		}
	}
	for _, file := range sortedKeys(edits) {
		if err := rewrite(file, edits[file]); err != nil {
			return sum, err
		}
		sum.Updated += len(edits[file])
		fmt.Fprintf(opts.Out, "updated %s: %d %s\n", file, len(edits[file]), plural(len(edits[file]), "case", "cases"))
	}
	return sum, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// prepare loads the config, or a workspace's servers, and builds each once, so a broken config
// is reported as `octo validate` reports it rather than once per case.
func (r *runner) prepare(cases []*loaded) error {
	var cfgs []*config.Config
	lookup := r.lookup
	if workspace.Is(r.path) {
		servers, ds := workspace.Configs(r.path, "")
		if len(ds) > 0 {
			return ds
		}
		r.servers = servers
		for _, name := range sortedKeys(servers) {
			if err := r.onStdio(servers[name]); err != nil {
				return err
			}
			cfgs = append(cfgs, servers[name])
		}
	} else {
		cfg, with, err := r.loadShared(cases)
		if err != nil {
			return err
		}
		cfgs, lookup = []*config.Config{cfg}, with
	}
	var all config.Diags
	for _, cfg := range cfgs {
		_, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.DiscardHandler), LookupEnv: lookup})
		var ds config.Diags
		switch {
		case errors.As(err, &ds):
			all = append(all, ds...)
		case err != nil:
			return err
		}
	}
	if len(all) > 0 {
		return all
	}
	return nil
}

// loadShared loads the config once for the cases that set no env of their own. A variable CI
// does not export (a secret, say) may be set only by the cases' env: then the config is checked
// with theirs, and every case loads it as its own env makes it, so a case that sets nothing
// fails on the variable it lacks, by name.
// It returns the lookup the config was loaded with.
func (r *runner) loadShared(cases []*loaded) (*config.Config, func(string) (string, bool), error) {
	cfg, err := r.load(r.lookup)
	if err == nil {
		r.cfg = cfg
		return cfg, r.lookup, nil
	}
	if envs := caseEnvs(cases); len(envs) > 0 {
		with := overlay(envs, r.lookup)
		if cfg, ferr := r.load(with); ferr == nil {
			return cfg, with, nil
		}
	}
	return nil, nil, err
}

// caseEnvs is every variable the cases set, the first case's value where two set one.
func caseEnvs(cases []*loaded) map[string]string {
	out := map[string]string{}
	for _, c := range cases {
		for k, v := range c.Env {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}

// overlay looks a name up in vars, then in next.
func overlay(vars map[string]string, next func(string) (string, bool)) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		return next(name)
	}
}

// load loads the config as lookup's variables make it, served as the options say.
func (r *runner) load(lookup func(string) (string, bool)) (*config.Config, error) {
	cfg, err := config.Load(r.path, lookup)
	if err == nil {
		err = r.onStdio(cfg)
	}
	return cfg, err
}

// onStdio rewrites cfg as `octo run --stdio` serves it, when the options ask for stdio.
func (r *runner) onStdio(cfg *config.Config) error {
	if !r.stdio {
		return nil
	}
	_, err := cli.ServeOnStdio(cfg)
	return err
}

// maxLogLines is how much of a failed case's log is printed without -v.
const maxLogLines = 20

// report prints what a case got and its service's log: all of it with verbose, else the end.
func report(w io.Writer, o *outcome, verbose bool) {
	if o.body != "" {
		body := o.body
		if !verbose {
			body = clip(body, 500)
		}
		fmt.Fprintf(w, "     got: %s\n", strings.TrimRight(body, "\n"))
	}
	lines := strings.Split(strings.TrimRight(o.log.String(), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return
	}
	if !verbose && len(lines) > maxLogLines {
		lines = append([]string{fmt.Sprintf("(%d lines before these; -v prints them)", len(lines)-maxLogLines)}, lines[len(lines)-maxLogLines:]...)
	}
	var b bytes.Buffer
	b.WriteString("     log:\n")
	for _, l := range lines {
		b.WriteString("       " + l + "\n")
	}
	_, _ = w.Write(b.Bytes())
}

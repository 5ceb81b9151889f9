package octotest

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	cli.RegisterCommand(cli.Command{
		Name: "test", Order: 25, Run: cmdTest,
		Summary: "run the test cases in a config's tests/ folder, or a folder of cases against any MCP server, and report each",
		Usage: "test DIR|--config DIR [--run REGEX] [--env-file FILE] [-v] [--stdio] [--update] [--report junit:FILE|json:FILE]\n" +
			"       octo test DIR --server URL | --server -- COMMAND ARGS...   (cases in DIR/tests, else DIR, against any MCP server)\n" +
			"       octo test --record FILE --server URL | --server -- COMMAND ARGS...   (a new file of cases from what the server answers)",
	})
	// The test file's schema and reference page come from its settings type, as a config
	// adapter's files do: `octo schema test`, docs/reference/octo-test.schema.json.
	runtime.RegisterAdapter(runtime.AdapterSpec{
		Type:    "test",
		Summary: "test cases beside a config, in its tests/ folder, run by octo test",
		Files: []runtime.AdapterFile{{
			Name: "test", Pattern: Dir + "/*.yaml", Settings: runtime.SettingsTypeOf[File](),
			Doc: "A file of test cases: each sends an HTTP or MCP request to a flow of the config beside it, with stubs for its http-request calls, and checks the answer.",
		}},
	})
}

// reportFlags are the --report flags, each FORMAT:FILE.
type reportFlags []Report

func (r *reportFlags) String() string { return "" }

func (r *reportFlags) Set(spec string) error {
	rep, err := ParseReport(spec)
	if err != nil {
		return err
	}
	*r = append(*r, rep)
	return nil
}

// notRun ends a run whose cases could not run (a broken case file or config, a report that
// cannot be written): exit code 2, so CI tells it from failed cases.
type notRun struct{ error }

func (e notRun) ExitCode() int { return 2 }

func (e notRun) Unwrap() error { return e.error }

// Explain keeps the config's problems each at its line (cli's explain).
func (e notRun) Explain() string {
	if ex, ok := e.error.(interface{ Explain() string }); ok {
		return ex.Explain()
	}
	return e.Error()
}

// failedError ends a run whose cases failed: exit code 1, the summary as its message.
type failedError struct{ sum Summary }

func (e *failedError) Error() string {
	return fmt.Sprintf("FAIL: %d of %d cases failed", e.sum.Failed, e.sum.Failed+e.sum.Passed)
}

func cmdTest(ctx context.Context, env *cli.Env, args []string) error {
	// What follows -- is a server's command: --server -- COMMAND ARGS...
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
		if n := len(args); n > 0 && (args[n-1] == "--server" || args[n-1] == "-server") {
			args = args[:n-1]
		} else {
			return cli.Usagef("a command after -- is the server's: write --server -- COMMAND ARGS...")
		}
		if len(command) == 0 {
			return cli.Usagef("--server --: name the server's command after --")
		}
	}
	fs := cli.NewFlags("test", env)
	serverURL := fs.String("server", "", "run the cases (DIR/tests/*.yaml, else DIR/*.yaml) against the MCP server at this URL (Streamable HTTP, or the legacy HTTP+SSE transport when that is all it speaks) instead of a config; --server -- COMMAND ARGS... starts a server that speaks over its standard streams, one process a case")
	path := fs.String("config", "", "a config folder (all its YAML files) or a single YAML file; its cases are in tests/*.yaml beside it")
	run := fs.String("run", "", "run only the cases whose name matches this regular expression")
	verbose := fs.Bool("v", false, "print every case's answer and service log, not only failed ones'")
	envFile := fs.String("env-file", "", "read env variables from this file (NAME=value lines, as .env files); they win over the process environment, and a case's env wins over them")
	var reports reportFlags
	fs.Var(&reports, "report", "also write the results to a file CI reads: junit:FILE (JUnit XML) or json:FILE; repeat it for both")
	update := fs.Bool("update", false, "write what each mcp case was answered into its expect (body, or error, and isError) where it differs, leaving out the paths in its expect.ignore, instead of failing on it; the case's other expectations are still checked")
	record := fs.String("record", "", "with --server: write a new FILE of cases from what the server offers (its lists, resources, prompts without arguments, read-only tools without arguments), each answer as the case's expect.body; values that change between two answers go in expect.ignore")
	stdio := fs.Bool("stdio", false, "serve the flow with the mcp-router (or mcp-mock) on a stdio connector as run --stdio does, so its mcp cases go over a pipe, one JSON-RPC message per line; other flows keep their connectors")
	if recording(args) { // --record needs no folder of cases: it writes the first file of one
		pos, err := cli.ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 || *path != "" {
			return cli.Usagef("--record writes a new file of cases: octo test --server URL --record FILE (no DIR)")
		}
	} else if err := cli.ParseConfig(fs, args, path); err != nil {
		return err
	}
	opts := Options{Verbose: *verbose, Out: env.Stdout, LookupEnv: env.LookupEnv, Stdio: *stdio}
	switch {
	case *serverURL != "" && command != nil:
		return cli.Usagef("--server takes a URL or -- COMMAND ARGS..., not both")
	case *serverURL != "":
		if u, err := url.Parse(*serverURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cli.Usagef("--server %q: expected an http:// or https:// URL of an MCP endpoint", *serverURL)
		}
		opts.Server = &Server{URL: *serverURL}
	case command != nil:
		opts.Server = &Server{Command: command}
	}
	if opts.Server != nil && *stdio {
		return cli.Usagef("--stdio serves a config; with --server the server is yours (-- COMMAND ARGS... speaks over stdio)")
	}
	if *record != "" {
		switch {
		case opts.Server == nil:
			return cli.Usagef("--record FILE records a server's answers: give it with --server URL or --server -- COMMAND ARGS...")
		case *update || *run != "" || len(reports) > 0:
			return cli.Usagef("--record writes a new file of cases; --update, --run and --report are for running cases")
		}
		rec, err := Record(ctx, opts.Server, *record)
		if err != nil {
			return notRun{err}
		}
		PrintRecorded(env.Stdout, rec, *record)
		return nil
	}
	opts.Update = *update
	if *envFile != "" {
		vars, ds := config.ReadEnvFile(*envFile)
		if len(ds) > 0 {
			return ds
		}
		opts.LookupEnv = overlay(vars, env.LookupEnv)
	}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return cli.Usagef("--run: %v", err)
		}
		opts.Run = re
	}
	sum, err := Run(ctx, *path, opts)
	if err != nil {
		return notRun{err}
	}
	under := *path
	if opts.Server != nil {
		under = opts.Server.String()
	}
	for _, r := range reports {
		if err := r.Write(sum, under); err != nil {
			return notRun{err}
		}
	}
	if sum.Failed > 0 {
		return &failedError{sum}
	}
	if sum.Passed == 0 {
		return notRun{fmt.Errorf("%s: no case matches --run %q", *path, *run)}
	}
	fmt.Fprintf(env.Stdout, "ok: %d cases passed (%s)\n", sum.Passed, *path)
	return nil
}

// recording reports whether args ask for --record.
func recording(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		return strings.HasPrefix(a, "-") && name == "record"
	})
}

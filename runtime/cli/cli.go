// Package cli is octo's command line: one function per subcommand, each
// returning an error, so tests call them directly. It wires the runtime to
// the standard blocks and connectors; it holds no protocol logic.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	_ "github.com/octo-run/octo/blocks/all"     // the standard blocks
	_ "github.com/octo-run/octo/connectors/all" // the standard connectors
)

// version is set at build time with -ldflags "-X ...cli.version=v1.2.3".
var version = "dev"

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	LookupEnv      func(string) (string, bool)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	usage   string
	run     func(ctx context.Context, env *Env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"run", "serve a config folder or file until interrupted", "run --config DIR [--watch] [--log-level L] [--log-format text|json]", cmdRun},
		{"validate", "build a config without listening and report every problem", "validate --config DIR", cmdValidate},
		{"serve", "serve the saved MCP mock servers of a workspace folder", `serve WORKSPACE [SERVER...] [--port N] [--stdio] [--json] [--env NAME] [--shutdown-timeout 10s]`, cmdServe},
		{"new", "write a starter: a mock server in a workspace, or a flow config", `new [mcp-mock WORKSPACE "NAME" | mcp-router DIR]`, cmdNew},
		{"blocks", "list the block and connector types, or print one's reference (alias: list)", "blocks [NAME]", cmdBlocks},
		{"schema", "print the JSON Schema of a flow config, or of a workspace file (server, workspace)", "schema [config|server|workspace]", cmdSchema},
		{"token", "print a signed access token for local testing (DEVELOPMENT ONLY: real tokens come from your authorization server)",
			"token --key FILE --aud URL [--scope \"a b\"] [--sub ID] [--ttl 1h] [--kid ID] [--iss URL]", cmdToken},
		{"version", "print the version", "version", cmdVersion},
		{"help", "show help for octo or a command", "help [command]", cmdHelp},
	}
}

// errUsage marks a usage mistake: the message is printed with the usage and
// the exit code is 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Main runs octo with args (without the program name) and returns the exit
// code: 0 on success, 1 on failure, 2 on a usage mistake.
func Main(ctx context.Context, env *Env, args []string) int {
	if env.LookupEnv == nil {
		env.LookupEnv = os.LookupEnv
	}
	if len(args) == 0 {
		printHelp(env.Stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		printHelp(env.Stdout)
		return 0
	}
	if name == "list" {
		name = "blocks"
	}
	if name == "--version" || name == "-v" {
		name = "version"
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(*usageError)):
			fmt.Fprintf(env.Stderr, "octo %s: %v\nusage: octo %s\n", c.name, err, c.usage)
			return 2
		default:
			fmt.Fprintln(env.Stderr, strings.TrimRight(err.Error(), "\n"))
			return 1
		}
	}
	fmt.Fprintf(env.Stderr, "octo: unknown command %q\n\n", name)
	printHelp(env.Stderr)
	return 2
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "octo: a declarative flow runtime; its mcp-router block serves MCP servers from YAML.")
	fmt.Fprintln(w, "\nUsage: octo <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'octo <command> --help' for a command's flags.")
}

func cmdHelp(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		printHelp(env.Stdout)
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, env, []string{"--help"})
		}
	}
	return &usageError{fmt.Sprintf("no command %q", args[0])}
}

func cmdVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlags("version", env)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "octo %s\n", version)
	return nil
}

// newFlags makes a flag set whose --help prints to stdout and whose errors
// become usage errors.
func newFlags(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("octo "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stdout)
	for _, c := range commands {
		if c.name == name {
			fs.Usage = func() {
				fmt.Fprintf(env.Stdout, "%s\n\nusage: octo %s\n", c.summary, c.usage)
				if hasFlags(fs) {
					fmt.Fprintln(env.Stdout, "\nflags:")
					fs.SetOutput(env.Stdout)
					fs.PrintDefaults()
					fs.SetOutput(io.Discard)
				}
			}
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args) // prints the usage itself on -h/--help
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// logFlags are the logging flags every serving command takes.
type logFlags struct{ level, format string }

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.level, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&l.format, "log-format", "text", "log format: text or json")
}

func (l *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.level)); err != nil {
		return nil, &usageError{fmt.Sprintf("unknown log level %q (use debug, info, warn or error)", l.level)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, &usageError{fmt.Sprintf("unknown log format %q (use text or json)", l.format)}
}

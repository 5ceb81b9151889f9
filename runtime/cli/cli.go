// Package cli is octo's command line: a registry of subcommands (RegisterCommand), each a
// function returning an error, and what commands share (Env, NewFlags, Parse, Usagef,
// UntilSignalled). It holds the engine's own commands (run, validate, new, blocks, schema,
// version, help); a block's or adapter's commands are registered by their package (serve and
// `new mcp-mock` by the mock workspace, token by jwt-validate, `new mcp-router` by the
// router), so it imports no block or connector: main.go imports those.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/heapfloor"
	"github.com/octo-run/octo/runtime/memtrim"
	"github.com/octo-run/octo/runtime/printable"
)

// version, revision and buildTime are set by a release build (make release) with -ldflags
// "-X github.com/octo-run/octo/runtime/cli.version=v1.2.3 -X ...cli.revision=<commit> -X
// ...cli.buildTime=<RFC 3339>"; the revision also comes from Go's VCS stamp when the build
// made one.
var (
	version   = "dev"
	revision  = ""
	buildTime = ""
)

// Version is the binary's version, as `octo version` prints it (servers octo runs report it):
// what a release build stamped, else the module version `go install module@version` records,
// else dev.
func Version() string { return buildVersion() }

var buildVersion = sync.OnceValue(func() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
})

// buildDescription says what the binary was built from: the commit (and whether the tree had
// changes beside it), when, and with which Go for which platform.
func buildDescription() string {
	var parts []string
	revision, committed, modified := revision, "", false
	goVersion := goruntime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				committed = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if revision != "" {
		r := "revision " + revision
		if modified {
			r += " with uncommitted changes"
		}
		parts = append(parts, r)
	}
	if committed != "" {
		parts = append(parts, "committed "+committed)
	}
	if buildTime != "" {
		parts = append(parts, "built "+buildTime)
	}
	parts = append(parts, goVersion+" "+goruntime.GOOS+"/"+goruntime.GOARCH)
	return strings.Join(parts, ", ")
}

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	LookupEnv      func(string) (string, bool)
}

func init() {
	for _, c := range []Command{
		{Name: "run", Order: 10, Summary: "serve a config folder or file until interrupted", Usage: "run DIR|--config DIR [--stdio] [--watch] [--admin ADDR] [--log-level L] [--log-format text|json]", Run: cmdRun},
		{Name: "validate", Order: 20, Summary: "build a config without listening and report every problem", Usage: "validate DIR|--config DIR [--stdio]", Run: cmdValidate},
		{Name: "new", Order: 40, Summary: "write a starter: a mock server in a workspace, or a flow config", Usage: `new [mcp-mock WORKSPACE "NAME" | mcp-router DIR]`, Run: cmdNew},
		{Name: "blocks", Order: 50, Summary: "list the block and connector types, or print one's reference (alias: list)", Usage: "blocks [NAME]", Run: cmdBlocks},
		{Name: "schema", Order: 60, Summary: "print the JSON Schema of a flow config, a workspace file (server, workspace) or a test file (test)", Usage: "schema [config|server|workspace|test]", Run: cmdSchema},
		{Name: "version", Order: 80, Summary: "print the version", Usage: "version", Run: cmdVersion},
		{Name: "help", Order: 90, Summary: "show help for octo or a command", Usage: "help [command]", Run: cmdHelp},
	} {
		RegisterCommand(c)
	}
}

// defaultIdleRelease is how long a process that has worked must be idle before it hands
// back the memory its work left (runtime/memtrim); OCTO_IDLE_RELEASE sets another (0: never).
const defaultIdleRelease = 30 * time.Second

// idleRelease reads OCTO_IDLE_RELEASE, warning of a value that is not a duration.
func idleRelease(env *Env) time.Duration {
	v, ok := env.LookupEnv("OCTO_IDLE_RELEASE")
	if !ok || v == "" {
		return defaultIdleRelease
	}
	if v == "0" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		fmt.Fprintf(env.Stderr, "octo: OCTO_IDLE_RELEASE=%s is not a duration such as 30s (0 turns it off); using %s\n", printable.Escape(v), defaultIdleRelease)
		return defaultIdleRelease
	}
	return d
}

// Main runs octo with args (without the program name) and returns the exit
// code: 0 on success, 1 on failure, 2 on a usage mistake.
func Main(ctx context.Context, env *Env, args []string) int {
	if env.LookupEnv == nil {
		env.LookupEnv = os.LookupEnv
	}
	heapfloor.Keep(heapfloor.DefaultFloor) // unless GOGC says otherwise: see the package
	memtrim.Enable(idleRelease(env))       // a service hands back what its start used, and an idle one what it ran
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
	for _, c := range commands() {
		if c.Name != name {
			continue
		}
		err := c.Run(ctx, env, args[1:])
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(*usageError)):
			fmt.Fprintf(env.Stderr, "octo %s: %s\nusage: octo %s\n", c.Name, printable.Escape(err.Error()), c.Usage)
			return 2
		default:
			fmt.Fprintln(env.Stderr, printable.EscapeText(strings.TrimRight(explain(err), "\n")))
			if ec, ok := errors.AsType[ExitCoder](err); ok {
				return ec.ExitCode()
			}
			return 1
		}
	}
	fmt.Fprintf(env.Stderr, "octo: unknown command %s\n\n", printable.Quote(name))
	printHelp(env.Stderr)
	return 2
}

// ExitCoder is a command's error that names its exit code: octo test ends with 2 when its cases
// cannot run (a broken case file or config), 1 only when cases ran and failed.
type ExitCoder interface {
	error
	ExitCode() int
}

// explain is the text of a command's error for people: a config's problems each with the line
// it points at and a caret under the column.
func explain(err error) string {
	if ex, ok := err.(interface{ Explain() string }); ok { // config.Diags, or an error holding them
		return ex.Explain()
	}
	return err.Error()
}

// oneLine is an error printed as its text alone, one line per problem of a config: the form
// for machines reading what a command with --log-format json writes.
type oneLine struct{ error }

func (e oneLine) Unwrap() error { return e.error }

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "octo: a declarative flow runtime; its mcp-router block serves MCP servers from YAML.")
	fmt.Fprintln(w, "\nUsage: octo <command> [flags]\n\nCommands:")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.Name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nRun 'octo <command> --help' for a command's flags.")
	fmt.Fprintf(w, "\nEnvironment:\n  OCTO_IDLE_RELEASE  how long a serving process that has worked must be idle before it\n"+
		"                     hands back the memory the work left (default %s; 0: never)\n", defaultIdleRelease)
}

func cmdHelp(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		printHelp(env.Stdout)
		return nil
	}
	for _, c := range commands() {
		if c.Name == args[0] {
			return c.Run(ctx, env, []string{"--help"})
		}
	}
	return &usageError{fmt.Sprintf("no command %q", args[0])}
}

func cmdVersion(_ context.Context, env *Env, args []string) error {
	fs := NewFlags("version", env)
	if err := Parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "octo %s (%s)\n", Version(), buildDescription())
	return nil
}

// NewFlags makes the flag set of the command registered as name: its --help prints the
// command's summary, usage and flags to stdout, and Parse turns its errors into usage errors.
func NewFlags(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("octo "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stdout)
	for _, c := range commands() {
		if c.Name == name {
			fs.Usage = func() {
				fmt.Fprintf(env.Stdout, "%s\n\nusage: octo %s\n", c.Summary, c.Usage)
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

// Parse parses args into fs: --help prints the command's help and returns flag.ErrHelp, and a
// flag mistake is a usage error.
func Parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	// The help goes to stdout when asked for; a mistake gets one line on stderr, not the help.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		if usage != nil {
			usage()
		}
		return err
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// ParseConfig parses the flags of a command that takes a config, named by --config or as its
// one argument (`octo run DIR`), flags before or after it.
func ParseConfig(fs *flag.FlagSet, args []string, path *string) error {
	pos, err := ParseInterleaved(fs, args)
	switch {
	case err != nil:
		return err
	case len(pos) > 1:
		return Usagef("one config only: %q is a second argument", pos[1])
	case len(pos) == 1 && *path != "":
		return Usagef("the config is named twice: %q and --config %q", pos[0], *path)
	case len(pos) == 1:
		*path = pos[0]
	case *path == "":
		return Usagef("name a config: %s DIR (or --config DIR), a config folder or a single YAML file", fs.Name())
	}
	return nil
}

// logFlags are the logging flags every serving command takes.
type logFlags struct{ level, format string }

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.level, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&l.format, "log-format", "text", "log format: text or json")
}

// plain keeps err to one line per problem when the log is for machines.
func (l *logFlags) plain(err error) error {
	if err != nil && l.format == "json" {
		return oneLine{err}
	}
	return err
}

func (l *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.level)); err != nil {
		return nil, &usageError{fmt.Sprintf("unknown log level %q (use debug, info, warn or error)", l.level)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.format {
	case "text":
		return slog.New(runtime.LogRequestIDs(slog.NewTextHandler(w, opts))), nil
	case "json":
		return slog.New(runtime.LogRequestIDs(slog.NewJSONHandler(w, opts))), nil
	}
	return nil, &usageError{fmt.Sprintf("unknown log format %q (use text or json)", l.format)}
}

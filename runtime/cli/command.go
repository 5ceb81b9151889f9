package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime"
)

// Command is one of octo's subcommands. The package that owns what a command does registers it
// from its init (serve by the mock workspace, token by jwt-validate), so this package holds no
// block knowledge; main.go imports the standard blocks and connectors, and with them their
// commands.
type Command struct {
	Name    string
	Summary string // one line for `octo help`
	Usage   string // what follows "octo " in the usage line
	// Order places the command in `octo help`: lower first, then by name.
	Order int
	// Run runs the command with the arguments after its name. A usage mistake is an error made
	// by Usagef (exit code 2); flag.ErrHelp is a success.
	Run func(ctx context.Context, env *Env, args []string) error
}

// Starter is one kind of thing `octo new NAME …` writes; its owner registers it.
type Starter struct {
	Name    string
	Summary string // what `octo new` lists
	Usage   string // the full command, as `octo new` lists it
	// Args are its arguments in the new command's usage line; Makes is what it makes, in the
	// command's summary.
	Args, Makes string
	// Write writes the starter from the arguments after its name.
	Write func(env *Env, args []string, opts NewOptions) error
}

// NewOptions are the flags of `octo new` a starter takes.
type NewOptions struct {
	// Port is the port the starter serves on; 0 lets it pick the first free one from its own.
	Port int
}

// ConfigFolder runs and validates a --config path that is not a flow config but a config
// adapter's folder (a workspace of saved mock servers); the adapter registers it.
type ConfigFolder struct {
	Name string
	// Is reports whether path is such a folder.
	Is func(path string) bool
	// Run serves the folder until ctx ends (`octo run --config`).
	Run func(ctx context.Context, path string, run FolderRun) error
	// Validate builds it without serving and says what is fine (`octo validate --config`).
	Validate func(env *Env, path string) error
}

// FolderRun is what `octo run` hands a config folder's Run besides its path.
type FolderRun struct {
	Logger *slog.Logger
	// Grace is --shutdown-timeout.
	Grace time.Duration
	// Observer measures every build (--admin); nil measures nothing.
	Observer runtime.Observer
	// Reloaded, when set, hears the outcome of each reload of the folder's files (--admin:
	// octo_reloads_total and /readyz's lastReload); nil means applied.
	Reloaded func(err error)
	// Serving and Stopping, when set, hear that the folder serves (what could start has
	// started) and that it stops (a signal came): /readyz follows them.
	Serving, Stopping func()
}

var registry struct {
	sync.Mutex
	commands []Command
	starters []Starter
	folders  []ConfigFolder
}

// RegisterCommand adds a command; registering a name twice is a programming error and panics.
func RegisterCommand(c Command) {
	registry.Lock()
	defer registry.Unlock()
	if c.Name == "" || c.Run == nil || slices.ContainsFunc(registry.commands, func(o Command) bool { return o.Name == c.Name }) {
		panic(fmt.Sprintf("cli: command %q registered twice, or without a name or a Run", c.Name))
	}
	registry.commands = append(registry.commands, c)
	slices.SortStableFunc(registry.commands, func(a, b Command) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// RegisterStarter adds a starter to `octo new`.
func RegisterStarter(s Starter) {
	registry.Lock()
	defer registry.Unlock()
	if s.Name == "" || s.Write == nil || slices.ContainsFunc(registry.starters, func(o Starter) bool { return o.Name == s.Name }) {
		panic(fmt.Sprintf("cli: starter %q registered twice, or without a name or a Write", s.Name))
	}
	registry.starters = append(registry.starters, s)
	slices.SortFunc(registry.starters, func(a, b Starter) int { return strings.Compare(a.Name, b.Name) })
}

// RegisterConfigFolder adds a kind of config folder to `octo run` and `octo validate`.
func RegisterConfigFolder(f ConfigFolder) {
	registry.Lock()
	defer registry.Unlock()
	if f.Is == nil || f.Run == nil || f.Validate == nil {
		panic(fmt.Sprintf("cli: config folder %q registered without Is, Run or Validate", f.Name))
	}
	registry.folders = append(registry.folders, f)
}

// commands lists the registered commands in the order help shows them. The new command's
// texts name the starters registered.
func commands() []Command {
	registry.Lock()
	list := slices.Clone(registry.commands)
	registry.Unlock()
	for i := range list {
		if list[i].Name == "new" {
			list[i].Summary, list[i].Usage = newTexts(starters())
		}
	}
	return list
}

// newTexts are the summary and usage of the new command with these starters.
func newTexts(ss []Starter) (summary, usage string) {
	makes, args := make([]string, len(ss)), make([]string, len(ss))
	for i, s := range ss {
		makes[i], args[i] = s.Makes, s.Name+" "+s.Args
	}
	if n := len(makes); n > 1 {
		makes[n-1] = "or " + makes[n-1]
	}
	return "write a starter: " + strings.Join(makes, ", "), "new [" + strings.Join(args, " | ") + "] [--port N]"
}

func starters() []Starter {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.starters)
}

// folderOf returns the config folder kind path is, if any.
func folderOf(path string) (ConfigFolder, bool) {
	registry.Lock()
	folders := slices.Clone(registry.folders)
	registry.Unlock()
	for _, f := range folders {
		if f.Is(path) {
			return f, true
		}
	}
	return ConfigFolder{}, false
}

// usageError marks a usage mistake: the message is printed with the usage and the exit code
// is 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Usagef returns a usage mistake: Main prints it with the command's usage and exits 2.
func Usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// ParseInterleaved parses flags that may come after positional arguments
// (`octo serve ws "Weather mock" --stdio`) and returns the positional ones.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := Parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
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

var registry struct {
	sync.Mutex
	commands []Command
	starters []Starter
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

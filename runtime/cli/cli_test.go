package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"     // the standard blocks, with their commands, as main.go has them
	_ "github.com/octo-run/octo/connectors/all" // the standard connectors
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), &cli.Env{Stdout: &out, Stderr: &errb, LookupEnv: func(string) (string, bool) { return "", false }}, args)
	return code, out.String(), errb.String()
}

func TestCommandsAnswerWithTheRightExitCodeAndText(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"help lists the commands", []string{"help"}, 0, "validate", ""},
		{"--help lists the commands", []string{"--help"}, 0, "Commands:", ""},
		{"help for a command shows its flags", []string{"help", "run"}, 0, "-shutdown-timeout", ""},
		{"every command takes --help", []string{"validate", "--help"}, 0, "-config", ""},
		{"version prints the version", []string{"version"}, 0, "octo dev", ""},
		{"blocks lists block and connector types", []string{"blocks"}, 0, "set-payload", ""},
		{"list is an alias of blocks", []string{"list"}, 0, "Connectors:", ""},
		{"no command is a usage error", nil, 2, "", "Usage: octo"},
		{"an unknown command is a usage error", []string{"serv"}, 2, "", `unknown command "serv"`},
		{"run without a config is a usage error", []string{"run"}, 2, "", "name a config: octo run DIR (or --config DIR)"},
		{"a config named twice is a usage error", []string{"run", "a", "--config", "b"}, 2, "", `the config is named twice: "a" and --config "b"`},
		{"two configs are a usage error", []string{"validate", "a", "b"}, 2, "", `one config only: "b" is a second argument`},
		{"a flag after the config is parsed", []string{"validate", "a", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{"an unknown flag is a usage error", []string{"validate", "--confg", "x"}, 2, "", "flag provided but not defined: -confg"},
		{"validate accepts a good config", []string{"validate", "--config", "../../samples/hello"}, 0, "samples/hello: ok", ""},
		{"validate takes the config as its argument", []string{"validate", "../../samples/hello", "--stdio=false"}, 0, "samples/hello: ok", ""},
		{"a usage mistake prints no help on stdout", []string{"validate", "--confg", "x"}, 2, "", "usage: octo validate"},
		{"validate reports a missing path", []string{"validate", "--config", "testdata/nope"}, 1, "", "testdata/nope: config path does not exist"},
		{"validate reports every problem of a broken config", []string{"validate", "--config", "../testdata/build/block-settings-problems.yaml"}, 1, "", `unknown key "valu" (did you mean "value"?)`},
		{"run does not start a broken config", []string{"run", "--config", "../testdata/build/unknown-block-type.yaml"}, 1, "", `unknown block type "set-paylod"`},
		{"a bad log level is a usage error", []string{"run", "--config", "x", "--log-level", "loud"}, 2, "", `unknown log level "loud"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			// A usage mistake is told on stderr only: stdout may be piped into something.
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errs, c.stderr) || code == 2 && out != "" {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
		})
	}
}

// `octo help` and `octo new` list every command and starter, wherever it is registered, in
// the same order and words every time.
func TestHelpListsEveryRegisteredCommandInItsPlace(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"new"}} {
		t.Run("octo "+args[0], func(t *testing.T) {
			code, out, errs := runCLI(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			runtimetest.Golden(t, "testdata/"+args[0]+".golden", out, *update)
		})
	}
}

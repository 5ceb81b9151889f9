package workspace

// The workspace's commands: `octo serve` and `octo new mcp-mock`. They register with the
// command line from init, so the engine's cli holds no knowledge of workspaces (`octo run` and
// `octo validate` reach a workspace folder through its config adapter, workspace.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "serve", Order: 30, Summary: "serve the saved mock servers (MCP and HTTP) of a workspace folder",
		Usage: `serve WORKSPACE [SERVER...] [--port N] [--stdio] [--json] [--env NAME] [--shutdown-timeout 10s]`, Run: serve})
	s := templates.Lookup("mcp-mock")
	cli.RegisterStarter(cli.Starter{Name: s.Name, Summary: s.Summary, Usage: s.Usage, Args: `WORKSPACE "NAME"`,
		Makes: "an MCP mock server in a workspace", Write: newStarter(KindMCP)})
	s = templates.Lookup("http-mock")
	cli.RegisterStarter(cli.Starter{Name: s.Name, Summary: s.Summary, Usage: s.Usage, Args: `WORKSPACE "NAME"`,
		Makes: "an HTTP mock server in a workspace", Write: newStarter(KindHTTP)})
}

// serve is `octo serve`: it serves the saved servers of a workspace.
func serve(ctx context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("serve", env)
	port := fs.Int("port", 0, "serve the one named server on this port instead of its own")
	useStdio := fs.Bool("stdio", false, "serve the one named server over standard input and output")
	asJSON := fs.Bool("json", false, "write the traffic log (stderr) and addresses (stdout) as JSON lines")
	envName := fs.String("env", "", "the workspace environment whose variables to use (default: the one workspace.yaml names)")
	level := fs.String("log-level", "info", "log level: debug (adds each message's JSON), info, warn or error")
	grace := fs.Duration("shutdown-timeout", 10*time.Second,
		"how long calls in flight may finish when input ends (--stdio) or on SIGINT/SIGTERM; those left are answered with an error")
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("name the workspace folder to serve")
	}
	dir := pos[0]
	if !Is(dir) {
		return fmt.Errorf("%s is not a workspace: it has neither %s nor a %s folder", dir, SettingsFile, ServersDir)
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return cli.Usagef("unknown log level %q (use debug, info, warn or error)", *level)
	}
	if *grace <= 0 {
		return cli.Usagef("--shutdown-timeout must be positive")
	}
	logger := TrafficLogger(env.Stderr, lv, *asJSON)
	stopTracing, err := cli.StartTracing(ctx, env, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	opts := Options{Environment: *envName, Servers: pos[1:], Port: *port, Logger: logger, StopTimeout: *grace}
	if *useStdio {
		opts.Transport = Stdio
		ctx = stdio.WithStreams(ctx, env.Stdin, env.Stdout)
	} else {
		opts.Ready = printAddress(env.Stdout, *asJSON)
	}
	return workspaceErr(cli.UntilSignalled(ctx, logger, func(ctx context.Context, reload <-chan struct{}) error {
		opts.Reload = reload
		return Run(ctx, dir, opts)
	}))
}

// workspaceErr says that the reasons are in the log above.
func workspaceErr(err error) error {
	if errors.Is(err, ErrNothingServed) {
		return errors.New("no server could be started; the problems are listed above")
	}
	var ds config.Diags
	if errors.As(err, &ds) {
		return ds.Err()
	}
	return err
}

// printAddress writes each server's MCP address to stdout once it serves.
func printAddress(w io.Writer, asJSON bool) func(name, url string) {
	var mu sync.Mutex
	return func(name, url string) {
		mu.Lock()
		defer mu.Unlock()
		if asJSON {
			b, _ := json.Marshal(struct {
				Server string `json:"server"`
				URL    string `json:"url"`
			}{name, url})
			fmt.Fprintf(w, "%s\n", b)
			return
		}
		fmt.Fprintf(w, "%s  %s\n", printable.Escape(name), printable.Escape(url))
	}
}

// newStarter is `octo new mcp-mock WORKSPACE NAME` (kind mcp) or `octo new http-mock …` (kind http).
func newStarter(kind string) func(env *cli.Env, args []string, opts cli.NewOptions) error {
	return func(env *cli.Env, args []string, opts cli.NewOptions) error {
		if len(args) != 2 {
			if kind == KindHTTP {
				return cli.Usagef(`http-mock takes a workspace folder and a server name: octo new http-mock my-mocks "Billing API"`)
			}
			return cli.Usagef(`mcp-mock takes a workspace folder and a server name: octo new mcp-mock my-mocks "Weather mock"`)
		}
		return newMockServer(env, args[0], args[1], opts.Port, kind)
	}
}

// newMockServer writes servers/<name>.yaml (and workspace.yaml for a new
// workspace) and says how to connect MCP clients. Port 0 picks one: 3004, or the next
// port neither a saved server nor another program uses. It holds the workspace's write lock
// from the name's check to the write, so a console or an agent saving at the same time never
// takes the same name or port.
func newMockServer(env *cli.Env, dir, name string, port int, kind string) error {
	if err := checkServerName(name); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), newLockWait, errNewBusy)
	defer cancel()
	w, err := Lock(ctx, dir)
	if err != nil {
		return err
	}
	defer w.Unlock()
	file := ServerFile(dir, name)
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("%s already exists; pick another name or edit it", file)
	}
	settings := filepath.Join(dir, SettingsFile)
	if _, err := os.Lstat(settings); errors.Is(err, fs.ErrNotExist) {
		if err := writeStarterFile("mcp-mock", SettingsFile, settings); err != nil {
			return err
		}
	}
	if err := reference.WriteSchemas(dir, "server", "workspace", "test"); err != nil { // the starter's modelines name them
		return err
	}
	if port == 0 {
		port = w.NextPort()
	} else if usedPorts(dir)(port) {
		return fmt.Errorf("--port %d: a saved server of %s uses it already", port, dir)
	}
	render := templates.RenderMockServer
	if kind == KindHTTP {
		render = templates.RenderHTTPMockServer
	}
	text, err := render(templates.MockServer{Name: name, Port: port})
	if err != nil {
		return err
	}
	if err := w.WriteServer(file, text); err != nil {
		return err
	}
	if kind == KindHTTP {
		return printHTTPServe(env.Stdout, dir, file, port)
	}
	if err := writeStarterTests(dir, name, port); err != nil {
		return err
	}
	return printConnect(env.Stdout, dir, name, file, port)
}

// printHTTPServe says how to serve a new HTTP mock and where it answers.
func printHTTPServe(w io.Writer, dir, file string, port int) error {
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	fmt.Fprintf(w, "Wrote %s (port %d).\n\nServe it:\n  octo serve %s\n\nTry it:\n  curl %s/invoices/7\n  curl -X POST %s/invoices -H 'Content-Type: application/json' -d '{\"customer\": \"ACME\", \"total\": 120}'\n",
		printable.Escape(file), port, printable.ShellQuote(dir), base, base)
	return nil
}

// newLockWait bounds how long octo new waits for another writer of the workspace.
const newLockWait = 30 * time.Second

// errNewBusy is the cause of a wait for the write lock that ran out of time.
var errNewBusy = errors.New("another octo (the app, its console or an agent) is writing to this workspace; try again when it is done")

// writeStarterTests writes tests/<name>.yaml, the starter's octo test cases, unless a file of
// that name is there already (the user's own cases are never overwritten).
func writeStarterTests(dir, name string, port int) error {
	file := filepath.Join(dir, "tests", name+".yaml")
	if _, err := os.Stat(file); err == nil {
		return nil
	}
	text, err := templates.RenderMockTests(templates.MockServer{Name: name, Port: port})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, text, 0o644)
}

// checkServerName refuses names that cannot be a file name or would be read
// as an answer tag.
func checkServerName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return cli.Usagef("the server name is empty")
	case strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, "."):
		return cli.Usagef("server name %q cannot be a file name: no slashes, not starting with a dot", name)
	case strings.Contains(name, "{{"):
		return cli.Usagef("server name %q holds {{", name)
	case !printable.Safe(name):
		return cli.Usagef("server name %q holds a control or invisible character: use letters, digits, spaces and punctuation", name)
	case len(name) > 100:
		return cli.Usagef("the server name is longer than 100 characters")
	}
	return nil
}

// printConnect tells where the server will listen and what to paste into
// an AI app's mcpServers settings, in both forms.
func printConnect(w io.Writer, dir, name, file string, port int) error {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the octo binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	byURL := map[string]any{"mcpServers": map[string]any{name: map[string]any{"url": url}}}
	byCommand := map[string]any{"mcpServers": map[string]any{name: map[string]any{
		"command": bin, "args": []string{"serve", absDir, name, "--stdio"}}}}
	fmt.Fprintf(w, "Wrote %s (port %d).\n\nServe it:\n  %s serve %s\n\nMCP address:\n  %s\n", printable.Escape(file), port, bin, printable.ShellQuote(dir), url)
	fmt.Fprintf(w, "\nmcpServers settings, over HTTP (while octo serve runs):\n%s\n", indentJSON(byURL))
	fmt.Fprintf(w, "\nmcpServers settings, over stdio (the app starts octo itself):\n%s\n", indentJSON(byCommand))
	return nil
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// writeStarterFile copies one file of a starter to dst.
func writeStarterFile(starter, name, dst string) error {
	files, err := templates.Files(starter)
	if err != nil {
		return err
	}
	data, err := fs.ReadFile(files, name)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

package app

// `octo app`: the app as a command. It opens the App, then runs an embedded config, the
// `agent` connector and one flow running agent-tools, on a supervisor whose shared table holds
// the App, so the block serves the App the command opened (with its terminal prompt).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/console/web"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/ports"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/supervisor"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "app", Order: 35, Run: command,
		Summary: "run the octo app: a workspace's mock servers and their traffic, for you and your AI agents (octo mcp)",
		Usage: "app [--workspace DIR] [--data-dir DIR] [--allow-agents[=bool]] [--agents-without-app[=bool]] " +
			"[--approve changes|never] [--approval-timeout 2m] [--shutdown-timeout 10s] [--log-level L] " +
			"[--console-port N] [--open] [--print-url] [--print-config]"})
}

// flags are octo app's flags.
type flags struct {
	workspace, dataDir, approve, level string
	allow, withoutApp, printConfig     bool
	open, printURL                     bool
	ports                              Ports
	timeout, grace                     time.Duration
	set                                map[string]bool // the flags given
}

func parseFlags(env *cli.Env, args []string) (*flags, error) {
	var f flags
	fs := cli.NewFlags("app", env)
	fs.StringVar(&f.workspace, "workspace", "", "the workspace folder to open (made when it does not exist); default: the last one, from settings.yaml, else workspace/ in the data folder")
	fs.StringVar(&f.dataDir, "data-dir", "", "octo's data folder: settings.yaml, agent.json (the agents' port and token), started.json; default: $OCTO_DATA_DIR, else the system's place ($XDG_DATA_HOME/octo or ~/.local/share/octo on Linux)")
	fs.BoolVar(&f.allow, "allow-agents", false, "let AI agents use octo's tools (saved as agents.allow; off, the first agent call asks you)")
	fs.BoolVar(&f.withoutApp, "agents-without-app", false, "let octo mcp run the tools itself while the app is closed, refusing what would ask you (saved as agents.withoutApp)")
	fs.StringVar(&f.approve, "approve", "", "which agent actions wait for your approval: changes (save, delete, start, stop) or never (saved as agents.approve)")
	fs.DurationVar(&f.timeout, "approval-timeout", DefaultApprovalTimeout, "how long an agent's action waits for your answer before it is refused")
	fs.DurationVar(&f.grace, "shutdown-timeout", 10*time.Second, "how long requests in flight may finish on SIGINT/SIGTERM")
	fs.StringVar(&f.level, "log-level", "info", "log level: debug, info, warn or error")
	fs.IntVar(&f.ports.Console, "console-port", 0, "the console's port on 127.0.0.1; 0 takes a free one (printed at start)")
	fs.IntVar(&f.ports.Agent, "agent-port", 0, "the port on 127.0.0.1 agents (octo mcp) connect to; 0 takes a free one. octo mcp finds it in agent.json either way: set one when a sandbox or firewall lets only a known port through")
	fs.BoolVar(&f.open, "open", false, "open the console in the browser once it serves (or the running app's, when one runs)")
	fs.BoolVar(&f.printURL, "print-url", false, "print the running app's console login link (a one-time link, made anew each time one is used) and exit; with --open, open it too")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the config octo app runs (the agent connector and the agent-tools block) and exit")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if f.set["approve"] && f.approve != appdata.ApproveChanges && f.approve != appdata.ApproveNever {
		return nil, cli.Usagef("--approve is %q: use changes or never", f.approve)
	}
	for name, port := range map[string]int{"console-port": f.ports.Console, "agent-port": f.ports.Agent} {
		if port < 0 || port > 65535 {
			return nil, cli.Usagef("--%s is %d: use 0 (any free port) to 65535", name, port)
		}
	}
	if f.ports.Console != 0 && f.ports.Console == f.ports.Agent {
		return nil, cli.Usagef("--console-port and --agent-port are both %d: the console and the agents need a port each", f.ports.Console)
	}
	if f.timeout <= 0 || f.grace <= 0 {
		return nil, cli.Usagef("--approval-timeout and --shutdown-timeout must be positive")
	}
	return &f, nil
}

// command is `octo app`.
func command(ctx context.Context, env *cli.Env, args []string) error {
	f, err := parseFlags(env, args)
	if err != nil {
		return err
	}
	dir, err := appdata.DataDir(f.dataDir)
	if err != nil {
		return err
	}
	if f.printConfig {
		_, err := io.WriteString(env.Stdout, EmbeddedYAML(dir, f.ports))
		return err
	}
	if f.printURL {
		return printLogin(env, dir, f.open)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.level)); err != nil {
		return cli.Usagef("unknown log level %q (use debug, info, warn or error)", f.level)
	}
	logger := workspace.TrafficLogger(env.Stderr, level, false)
	if err := saveFlags(dir, f); err != nil {
		return err
	}
	if running, err := appdata.AppRunning(dir); err != nil || running {
		if err != nil {
			return err
		}
		if settingsFlagged(f) {
			fmt.Fprintf(env.Stdout, "octo app: settings saved in %s; the octo app running on this data folder applies them from the next agent call\n",
				printable.Escape(filepath.Join(dir, appdata.SettingsFile)))
		}
		return showRunning(env, dir, f)
	}
	stopTracing, err := cli.StartTracing(ctx, env, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	// One supervisor for the whole process: the console and agents' unit, and a unit for each
	// saved server the workspace serves.
	sup := supervisor.New(supervisor.Options{Logger: logger, LookupEnv: noEnv, StopTimeout: f.grace})
	pending := NewPending() // the console's questions; the terminal is asked too when there is one
	a, err := Open(ctx, Options{DataDir: dir, Workspace: f.workspace, Approver: Either(pending, terminalApprover(env)),
		Pending: pending, ApprovalTimeout: f.timeout, Logger: logger, Supervisor: sup})
	if err != nil {
		return err
	}
	return cli.UntilSignalled(ctx, logger, func(ctx context.Context, _ <-chan struct{}) error {
		return serve(ctx, env, sup, a, dir, logger, f)
	})
}

// settingsFlagged says whether the flags change a setting of settings.yaml.
func settingsFlagged(f *flags) bool {
	return f.set["allow-agents"] || f.set["agents-without-app"] || f.set["approve"]
}

// saveFlags writes the settings the flags change into settings.yaml.
func saveFlags(dir string, f *flags) error {
	if !settingsFlagged(f) {
		return nil
	}
	s, err := appdata.LoadSettings(dir)
	if err != nil {
		return err
	}
	if f.set["allow-agents"] {
		s.Agents.Allow = f.allow
	}
	if f.set["agents-without-app"] {
		s.Agents.WithoutApp = f.withoutApp
	}
	if f.set["approve"] {
		s.Agents.Approve = f.approve
	}
	if s.Agents.Approve == "" {
		s.Agents.Approve = appdata.ApproveChanges
	}
	return appdata.SaveSettings(dir, s)
}

// terminalApprover asks on the terminal when standard input is one; otherwise only the console
// answers.
func terminalApprover(env *cli.Env) Approver {
	in, ok := env.Stdin.(*os.File)
	if !ok {
		return nil
	}
	info, err := in.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(info, null) { // started detached
		return nil
	}
	return NewPrompt(in, env.Stderr)
}

// serve runs the embedded config on sup with a (closed when it ends) until ctx ends.
func serve(ctx context.Context, env *cli.Env, sup *supervisor.Supervisor, a *App, dir string, logger *slog.Logger, f *flags) error {
	grace := f.grace
	_, release, err := runtime.Acquire(sup.Shared(), SharedKey(dir), func() (*App, error) { return a, nil })
	if err != nil {
		_ = a.Close(ctx)
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if err := sup.Close(sctx); err != nil {
			logger.Warn("shutdown was not clean", "err", err)
		}
		_ = release(sctx) // the last hold: closes the app
		logger.Info("stopped")
	}()
	if err := sup.Start(ctx, unitName, EmbeddedWithConsole(dir, f.ports)); err != nil {
		return f.ports.taken(err)
	}
	a.StartSaved(ctx)
	svc := sup.Service(unitName)
	printServing(env.Stdout, a, dir, svc)
	if f.open {
		openLogin(logger, dir)
	}
	<-ctx.Done()
	return nil
}

const unitName = "octo app"

// printServing tells where agents connect (agent.json, which the connector wrote when it
// started) and what the workspace serves.
func printServing(w io.Writer, a *App, dataDir string, svc *runtime.Service) {
	var b strings.Builder
	fmt.Fprintf(&b, "octo app: workspace %s\n", printable.Escape(a.Workspace()))
	if info, err := appdata.ReadInfo(dataDir); err == nil {
		fmt.Fprintf(&b, "octo app: agents connect on 127.0.0.1:%d (octo mcp finds it in %s)\n", info.Port, filepath.Join(dataDir, appdata.InfoFile))
	}
	if url := consoleURL(svc); url != "" {
		fmt.Fprintf(&b, "octo app: console on %s\n", url)
		if c, err := appdata.ReadConsole(dataDir); err == nil {
			fmt.Fprintf(&b, "octo app: open it with %s (works once; octo app --print-url prints a new one)\n", c.Login)
		}
	}
	for _, st := range a.States() {
		switch {
		case st.Running:
			fmt.Fprintf(&b, "  %s  %s\n", printable.Escape(st.Name), st.URL)
		case st.Problem != "":
			fmt.Fprintf(&b, "  %s  not serving: %s\n", printable.Escape(st.Name), printable.Escape(st.Problem))
		default:
			fmt.Fprintf(&b, "  %s  stopped\n", printable.Escape(st.Name))
		}
	}
	_, _ = io.WriteString(w, b.String()) // one write: a reader sees it whole
}

// noEnv keeps the process environment out of the embedded config: it has no ${VAR}.
func noEnv(string) (string, bool) { return "", false }

// Ports are the ports octo app serves on, each on 127.0.0.1; 0 takes a free one.
type Ports struct {
	Console, Agent int
}

// taken names the flag whose port another program holds when err says a port was taken: the
// ports are octo app's flags, not lines of a file.
func (p Ports) taken(err error) error {
	if !ports.InUse(err) {
		return err
	}
	for _, f := range []struct {
		flag string
		port int
	}{{"--console-port", p.Console}, {"--agent-port", p.Agent}} {
		if f.port != 0 && ports.Free(f.port, nil) != f.port {
			return fmt.Errorf("%s %d is in use by another program: pick another (%d is free now), or leave the flag out for any free port", f.flag, f.port, ports.Free(f.port+1, nil))
		}
	}
	return err
}

// EmbeddedYAML is the config octo app runs on the data folder dir on ports, as a config file
// would say it (octo app --print-config):
// saved to a file, `octo run --config` runs the same app, though with nobody to ask for
// approvals but the console (the block then opens the App itself, without a prompt).
func EmbeddedYAML(dir string, ports Ports) string {
	return "# The config octo app runs: agents connect to the agent connector (127.0.0.1, a free port\n" +
		"# unless port says one, told in agent.json in the data folder) and each connection is an MCP\n" +
		"# session of the agent tools;\n" +
		"# the console (the page and its API) is served on 127.0.0.1 by the console block.\n" +
		"service: { name: octo app }\n" +
		"connectors:\n" +
		"  - { name: agent, type: agent, settings: { " + agentConnector(quotedPath(dir), ports.Agent) + " } }\n" +
		"  - { name: console, type: http, settings: { " + consoleConnector(ports.Console) + " } }\n" +
		"flows:\n" +
		"  - name: agents\n" +
		"    source: { connector: agent }\n" +
		"    process:\n" +
		"      - { type: " + Type + ", settings: { dataDir: " + quotedPath(dir) + " } }\n" +
		"  - name: console\n" +
		"    source: { connector: console, settings: { " + consolePaths() + " } }\n" +
		"    process:\n" +
		"      - { type: " + consoleType + ", settings: { dataDir: " + quotedPath(dir) + " } }\n"
}

// quotedPath writes path as a YAML double-quoted scalar that octo run reads back as path: Go's
// escapes are YAML's, and a "${" in it, which octo run would take for a variable, is written
// "$${", the config language's escape for a literal "${" (a "$${" in path becomes "$$${",
// read back as "$${").
func quotedPath(path string) string {
	return strings.ReplaceAll(strconv.Quote(path), "${", "$${")
}

// consoleType is the console block's type (blocks/agent/console, which imports this package).
const consoleType = "console"

func consoleConnector(port int) string { return "port: " + strconv.Itoa(port) + ", host: 127.0.0.1" }

// agentConnector is the agent connector's settings, the data folder quoted as its document
// reads it back.
func agentConnector(quotedDir string, port int) string {
	return "dataDir: " + quotedDir + ", port: " + strconv.Itoa(port)
}

// consolePaths routes every path of the console's page and API (the http connector matches
// exact paths).
func consolePaths() string {
	quoted := make([]string, 0, len(web.Paths()))
	for _, p := range web.Paths() {
		quoted = append(quoted, strconv.Quote(p))
	}
	return "paths: [" + strings.Join(quoted, ", ") + "]"
}

// Embedded is the agents' part of octo app's config, on the data folder dir: the agent
// connector and the agent-tools flow (what a test of agents alone runs).
func Embedded(dir string) *config.Config {
	cfg := EmbeddedWithConsole(dir, Ports{})
	cfg.Connectors, cfg.Flows = cfg.Connectors[:1], cfg.Flows[:1]
	return cfg
}

// EmbeddedWithConsole is the config of EmbeddedYAML, built in place (a test holds the two to
// each other): what octo app runs.
func EmbeddedWithConsole(dir string, ports Ports) *config.Config {
	const file = "octo app"
	// (documents parsed one by one: Parse reads one; yaml.v3 stays out of blocks)
	settingsRoots, _ := config.Parse(file, []byte("dataDir: "+strconv.Quote(dir)+"\n"))
	agentRoots, _ := config.Parse(file, []byte("{ "+agentConnector(strconv.Quote(dir), ports.Agent)+" }\n"))
	consoleRoots, _ := config.Parse(file, []byte("{ "+consoleConnector(ports.Console)+" }\n"))
	pathsRoots, _ := config.Parse(file, []byte("{ "+consolePaths()+" }\n"))
	settings := settingsRoots[0] // both blocks'
	agent, console, paths := agentRoots[0], consoleRoots[0], pathsRoots[0]
	at := config.Where{File: file}
	return &config.Config{
		Files:     []string{file},
		Service:   config.Service{Name: unitName, At: at, Node: settings},
		Templates: map[string]*config.Template{},
		Connectors: []*config.Connector{
			{Name: "agent", Type: "agent", Settings: agent, At: at.Field("connectors"), Node: agent},
			{Name: "console", Type: "http", Settings: console, At: at.Field("connectors"), Node: console},
		},
		Flows: []*config.Flow{{
			Name:    "agents",
			Source:  config.Source{Connector: "agent", Type: "agent", At: at.Field("flows"), Node: settings},
			Process: []*config.Block{{Type: Type, Settings: settings, At: at.Field("flows"), Node: settings}},
			At:      at.Field("flows"),
			Node:    settings,
		}, {
			Name:    "console",
			Source:  config.Source{Connector: "console", Type: "http", Settings: paths, At: at.Field("flows"), Node: paths},
			Process: []*config.Block{{Type: consoleType, Settings: settings, At: at.Field("flows"), Node: settings}},
			At:      at.Field("flows"),
			Node:    settings,
		}},
	}
}

// consoleURL is the console's address, "" when it does not serve.
func consoleURL(svc *runtime.Service) string {
	c, ok := svc.Connector("console").(interface{ Addr() string })
	if !ok || c.Addr() == "" {
		return ""
	}
	return "http://" + c.Addr() + "/"
}

// showRunning tells a second `octo app` on the data folder dir where the running one is: its
// console's login link (opened with --open), since an app an agent started has no terminal of
// its own to print it. Flags that would need a restart say so.
func showRunning(env *cli.Env, dir string, f *flags) error {
	c, err := appdata.ReadConsole(dir)
	if err != nil {
		return fmt.Errorf("%w on the data folder %s, and its console cannot be found (%v): stop it and start octo app again",
			appdata.ErrAppRunning, printable.Escape(dir), err)
	}
	fmt.Fprintf(env.Stdout, "octo app: already running on the data folder %s (pid %d)\n", printable.Escape(dir), c.PID)
	fmt.Fprintf(env.Stdout, "octo app: open its console with %s (works once; octo app --print-url prints a new one)\n", c.Login)
	if f.set["workspace"] || f.set["console-port"] {
		fmt.Fprintf(env.Stdout, "octo app: --workspace and --console-port apply when it starts: stop it first to change them\n")
	}
	if f.open {
		openLogin(slog.New(slog.NewTextHandler(env.Stderr, nil)), dir)
	}
	return nil
}

// printLogin is `octo app --print-url`: the running app's login link, read from the data folder.
func printLogin(env *cli.Env, dir string, open bool) error {
	c, err := appdata.ReadConsole(dir)
	if errors.Is(err, appdata.ErrNoConsole) {
		return fmt.Errorf("no octo app serves a console on the data folder %s: start one with octo app", printable.Escape(dir))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, c.Login)
	if open {
		openLogin(slog.New(slog.NewTextHandler(env.Stderr, nil)), dir)
	}
	return nil
}

// openLogin opens the console's current login link in the browser, through a page in the data
// folder that forwards to it: a command line, which other users can list, holds only the
// page's path, never the link's secret.
func openLogin(logger *slog.Logger, dir string) {
	c, err := appdata.ReadConsole(dir)
	if err == nil {
		var page string
		if page, err = appdata.WriteOpenPage(dir, c.Login); err == nil {
			openBrowser(logger, (&url.URL{Scheme: "file", Path: filepath.ToSlash(page)}).String())
			return
		}
	}
	logger.Warn("could not open the console; open its login link yourself (octo app --print-url)", "err", err)
}

// openBrowser opens url with the system's opener; failing only logs, as the URL is printed.
func openBrowser(logger *slog.Logger, url string) {
	name, args := "xdg-open", []string{url}
	switch goruntime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "cmd", []string{"/c", "start", "", url}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		logger.Warn("could not open the browser; open the console's address yourself", "err", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

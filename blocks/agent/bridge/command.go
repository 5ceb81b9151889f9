package bridge

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "mcp", Order: 36, Run: command,
		Summary: "the MCP server AI coding agents start: hands their tool calls to the octo app",
		Usage:   "mcp"})
}

// prefix starts every line `octo mcp` writes to standard error: agents show it in their logs
// beside other servers' lines.
const prefix = "octo mcp: "

// callGrace is how long a call in flight when the agent closes its input (or signals) may take
// to answer, as a stdio MCP server finishes what it read before it exits; the agent stops
// waiting with a signal of its own. stopGrace is the stop that gives it: the MCP core waits for
// calls three quarters of a stop's time, and writes the errors of those left in the rest.
const (
	callGrace = 10 * time.Second
	stopGrace = callGrace * 4 / 3
)

// command is `octo mcp [--data-dir DIR]`: the agent-bridge block on the stdio connector, an
// embedded config, until the agent closes standard input. Exit 1 (Main's, for an error) when no
// data folder can be determined or reading or writing the streams failed.
func command(ctx context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("mcp", env)
	dataDir := fs.String("data-dir", "", "the app's data folder (for tests; wins over OCTO_DATA_DIR)")
	fs.Usage = func() {} // help is printed below, for --help only: standard output carries MCP
	// A usage mistake exits 1 too, as the product's documentation lists only 0 and 1, with the
	// message starting "octo mcp:" like every other problem it reports.
	if err := cli.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) { // --data-dir stays out of help: it is for testing
			fmt.Fprintf(env.Stdout, "the MCP server AI coding agents start: it answers on standard input and output, "+
				"one JSON-RPC message per line, and hands tool calls to the octo app\n\nusage: octo mcp\n")
			return err
		}
		return errors.New(prefix + err.Error() + " (usage: octo mcp)")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%stakes no arguments, got %q (usage: octo mcp)", prefix, fs.Arg(0))
	}
	stderr := &prefixed{w: env.Stderr}
	dir, err := appdata.DataDir(*dataDir)
	if err != nil {
		return errors.New(prefix + err.Error())
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// A write to an agent that closed its end fails with EPIPE instead of killing the process
	// (Go's default for standard output), so that octo mcp says so and exits 1.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	failed := new(failure)
	if err := serve(ctx, dir, logger, watchedReader{env.Stdin, failed}, watchedWriter{env.Stdout, failed}); err != nil {
		return errors.New(prefix + err.Error())
	}
	if err := failed.get(); err != nil {
		return errors.New(prefix + err.Error())
	}
	return nil
}

// serve runs the embedded config on in and out until the agent ends its input (or a signal).
func serve(ctx context.Context, dir string, logger *slog.Logger, in io.Reader, out io.Writer) error {
	svc, err := runtime.NewService(embedded(dir), runtime.Options{Logger: logger})
	if err != nil {
		return err
	}
	return cli.UntilSignalled(ctx, logger, func(ctx context.Context, _ <-chan struct{}) error {
		if err := svc.Start(stdio.WithStreams(ctx, in, out)); err != nil {
			return err
		}
		done := svc.Connector("stdio").(interface{ Done() <-chan struct{} }).Done()
		select {
		case <-done:
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), stopGrace)
		defer cancel()
		if err := svc.Stop(sctx); err != nil {
			logger.Warn("stopping was not clean", "err", err)
		}
		return nil
	})
}

// embedded is `octo mcp`'s config: the stdio connector and one flow running agent-bridge on
// the data folder dir, as a user would write it:
//
//	connectors: [{ name: stdio, type: stdio }]
//	flows:
//	  - { name: agent, source: { connector: stdio }, process: [{ type: agent-bridge, settings: { dataDir: DIR } }] }
func embedded(dir string) *config.Config {
	const file = "octo mcp"
	roots, _ := config.Parse(file, []byte("dataDir: "+strconv.Quote(dir)+"\n"))
	settings := roots[0] // also the node each item is positioned at: nothing here is misspelt
	at := config.Where{File: file}
	return &config.Config{
		Files:      []string{file},
		Service:    config.Service{Name: "octo mcp", At: at, Node: settings},
		Templates:  map[string]*config.Template{},
		Connectors: []*config.Connector{{Name: "stdio", Type: "stdio", At: at.Field("connectors"), Node: settings}},
		Flows: []*config.Flow{{
			Name:    "agent",
			Source:  config.Source{Connector: "stdio", At: at.Field("flows"), Node: settings},
			Process: []*config.Block{{Type: Type, Settings: settings, At: at.Field("flows"), Node: settings}},
			At:      at.Field("flows"),
			Node:    settings,
		}},
	}
}

// prefixed starts each line written to w with prefix; slog writes a line per call.
type prefixed struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var buf bytes.Buffer
	for _, line := range bytes.SplitAfter(b, []byte{'\n'}) {
		if len(line) > 0 {
			buf.WriteString(prefix)
			buf.Write(line)
		}
	}
	if _, err := p.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// failure keeps the first failure of the standard streams: `octo mcp` then exits 1.
type failure struct {
	mu  sync.Mutex
	err error
}

func (f *failure) note(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// watchedReader notes a read failure other than the end of input.
type watchedReader struct {
	r io.Reader
	f *failure
}

func (w watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		w.f.note(fmt.Errorf("reading standard input: %w", err))
	}
	return n, err
}

// watchedWriter notes a write failure.
type watchedWriter struct {
	w io.Writer
	f *failure
}

func (w watchedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.f.note(fmt.Errorf("writing standard output: %w", err))
	}
	return n, err
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime/config"
)

// cmdServe serves the saved MCP servers of a workspace.
func cmdServe(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("serve", env)
	port := fs.Int("port", 0, "serve the one named server on this port instead of its own")
	useStdio := fs.Bool("stdio", false, "serve the one named server over standard input and output")
	asJSON := fs.Bool("json", false, "write the traffic log (stderr) and addresses (stdout) as JSON lines")
	envName := fs.String("env", "", "the workspace environment whose variables to use (default: the one workspace.yaml names)")
	level := fs.String("log-level", "info", "log level: debug (adds each message's JSON), info, warn or error")
	grace := fs.Duration("shutdown-timeout", 10*time.Second,
		"how long calls in flight may finish when input ends (--stdio) or on SIGINT/SIGTERM; those left are answered with an error")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return &usageError{"name the workspace folder to serve"}
	}
	dir := pos[0]
	if !workspace.Is(dir) {
		return fmt.Errorf("%s is not a workspace: it has neither %s nor a %s folder", dir, workspace.SettingsFile, workspace.ServersDir)
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return &usageError{fmt.Sprintf("unknown log level %q (use debug, info, warn or error)", *level)}
	}
	if *grace <= 0 {
		return &usageError{"--shutdown-timeout must be positive"}
	}
	logger := trafficLogger(env.Stderr, lv, *asJSON)
	opts := workspace.Options{Environment: *envName, Servers: pos[1:], Port: *port, Logger: logger, StopTimeout: *grace}
	if *useStdio {
		opts.Transport = workspace.Stdio
		ctx = stdio.WithStreams(ctx, env.Stdin, env.Stdout)
	} else {
		opts.Ready = printAddress(env.Stdout, *asJSON)
	}
	return workspaceErr(untilSignalled(ctx, logger, func(ctx context.Context, reload <-chan struct{}) error {
		opts.Reload = reload
		return workspace.Run(ctx, dir, opts)
	}))
}

// runWorkspace is `octo run --config <workspace>`: the same servers, logged
// like any service.
func runWorkspace(ctx context.Context, dir string, logger *slog.Logger, grace time.Duration) error {
	err := untilSignalled(ctx, logger, func(ctx context.Context, reload <-chan struct{}) error {
		return workspace.Run(ctx, dir, workspace.Options{Logger: logger, StopTimeout: grace, Reload: reload})
	})
	if err == nil {
		logger.Info("stopped")
	}
	return workspaceErr(err)
}

// validateWorkspace is `octo validate --config <workspace>`.
func validateWorkspace(env *Env, dir string) error {
	names, ds := workspace.Validate(dir, "")
	if len(ds) > 0 {
		return ds.Err()
	}
	for _, n := range names {
		fmt.Fprintf(env.Stdout, "%s: %s: ok\n", dir, n)
	}
	return nil
}

// workspaceErr says that the reasons are in the log above.
func workspaceErr(err error) error {
	if errors.Is(err, workspace.ErrNothingServed) {
		return errors.New("no server could be started; the problems are listed above")
	}
	var ds config.Diags
	if errors.As(err, &ds) {
		return ds.Err()
	}
	return err
}

// parseInterleaved parses flags that may come after positional arguments
// (`octo serve ws "Weather mock" --stdio`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
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
		fmt.Fprintf(w, "%s  %s\n", name, url)
	}
}

// trafficLogger writes the log as JSON lines or as readable lines.
func trafficLogger(w io.Writer, level slog.Level, asJSON bool) *slog.Logger {
	if asJSON {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
	}
	return slog.New(&lineHandler{w: w, level: level, mu: new(sync.Mutex)})
}

// lineHandler writes one short line per record: traffic as
// "time server in|out summary [session]", anything else as
// "time LEVEL message key=value…". At debug level a message's JSON follows
// on its own indented line.
type lineHandler struct {
	w     io.Writer
	level slog.Level
	mu    *sync.Mutex
	attrs []slog.Attr
}

// Enabled implements slog.Handler.
func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

// WithAttrs implements slog.Handler.
func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup implements slog.Handler; groups are flattened.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// hiddenAttrs are context the line's shape already says, or runtime
// plumbing a reader of the traffic does not need.
var hiddenAttrs = map[string]bool{"flow": true, "block": true, "name": true, "kind": true, "transport": true}

// Handle implements slog.Handler.
func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	attrs, order, body := h.collect(r)
	var b strings.Builder
	b.WriteString(r.Time.Format("15:04:05.000"))
	b.WriteByte(' ')
	if dir, ok := attrs["direction"]; ok || attrs["kind"] == "session-opened" || attrs["kind"] == "session-closed" {
		fmt.Fprintf(&b, "%s  %-3s %s", attrs["server"], dir, r.Message)
		if sess := attrs["session"]; sess != "" {
			fmt.Fprintf(&b, "  [%s %s]", shortID(sess), attrs["transport"])
		}
		if reason := attrs["reason"]; reason != "" {
			fmt.Fprintf(&b, " (%s)", reason)
		}
	} else {
		fmt.Fprintf(&b, "%-5s %s", r.Level.String(), r.Message)
		for _, k := range order {
			if !hiddenAttrs[k] {
				fmt.Fprintf(&b, " %s=%s", k, quoteIfSpaced(attrs[k]))
			}
		}
	}
	b.WriteByte('\n')
	if body != "" && h.level <= slog.LevelDebug {
		b.WriteString("    ")
		b.WriteString(body)
		b.WriteByte('\n')
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// collect flattens the handler's and the record's attributes to text, in
// order, keeping a message's JSON apart. The JSON is copied only when it is
// printed (debug level): a message may be tens of megabytes.
func (h *lineHandler) collect(r slog.Record) (attrs map[string]string, order []string, body string) {
	attrs = map[string]string{}
	add := func(a slog.Attr) bool {
		if a.Key == "message" {
			if h.level <= slog.LevelDebug {
				body = valueText(a.Value)
			}
			return true
		}
		s := valueText(a.Value)
		if _, seen := attrs[a.Key]; !seen {
			order = append(order, a.Key)
		}
		attrs[a.Key] = s
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	return attrs, order, body
}

// valueText is an attribute's value as text, JSON as it is.
func valueText(v slog.Value) string {
	v = v.Resolve()
	if raw, ok := v.Any().(json.RawMessage); ok {
		return string(raw)
	}
	return v.String()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func quoteIfSpaced(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

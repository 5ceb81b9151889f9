package record

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/printable"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "record", Order: 32,
		Summary: "record a real MCP server (or HTTP API) into a saved mock server: pass a client's traffic on and keep what it answered",
		Usage:   `record WORKSPACE "NAME" (--upstream URL [--http] | -- COMMAND ARGS...) [--port N] [--force]`,
		Run:     command})
}

func command(ctx context.Context, env *cli.Env, args []string) error {
	var server []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, server = args[:i], args[i+1:]
	}
	fs := cli.NewFlags("record", env)
	upstream := fs.String("upstream", "", "the real server's Streamable HTTP URL (http://host:port/mcp)")
	port := fs.Int("port", 0, "the local port to point the client at (default 3100, or the next one free)")
	force := fs.Bool("force", false, "record over a saved server of that name")
	api := fs.Bool("http", false, "the upstream is an HTTP API (--upstream its base URL): record it into an HTTP mock")
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 2:
		return cli.Usagef(`name the workspace folder and the server: octo record my-mocks "Weather" --upstream http://127.0.0.1:8080/mcp`)
	case *upstream == "" && len(server) == 0:
		return cli.Usagef("say what to record: --upstream URL for a server over HTTP, or -- COMMAND ARGS... for one over stdio")
	case *upstream != "" && len(server) > 0:
		return cli.Usagef("record one server: --upstream URL or -- COMMAND ARGS..., not both")
	case len(server) > 0 && *api:
		return cli.Usagef("--http records an HTTP API by its --upstream URL, not a command")
	case len(server) > 0 && *port != 0:
		return cli.Usagef("--port is for --upstream: a stdio server is recorded over this process's own input and output")
	}
	o := Options{Workspace: pos[0], Name: pos[1], Upstream: *upstream, Command: server, Port: *port, Force: *force, HTTP: *api,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr}
	out := env.Stdout
	if len(server) > 0 {
		out = env.Stderr // stdout carries the client's messages
	}
	o.Ready = func(url, file string) {
		fmt.Fprintf(out, "Recording into %s; what the server answers is saved as it comes.\n", printable.Escape(file))
		if url != "" {
			fmt.Fprintf(out, "Point the client at:\n  %s\nStop with Ctrl-C; then serve the recording: octo serve %s\n", url, printable.ShellQuote(o.Workspace))
		}
	}
	if len(server) == 0 {
		logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
		return cli.UntilSignalled(ctx, logger, func(ctx context.Context, _ <-chan struct{}) error { return Record(ctx, o) })
	}
	return Record(ctx, o)
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

// cmdNew writes a starter: `octo new` alone lists them.
func cmdNew(_ context.Context, env *Env, args []string) error {
	fs := newFlags("new", env)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fmt.Fprintln(env.Stdout, "Starters:")
		for _, s := range templates.Starters {
			fmt.Fprintf(env.Stdout, "  %-12s %s\n               %s\n", s.Name, s.Summary, s.Usage)
		}
		return nil
	}
	switch pos[0] {
	case "mcp-mock":
		if len(pos) != 3 {
			return &usageError{`mcp-mock takes a workspace folder and a server name: octo new mcp-mock my-mocks "Weather mock"`}
		}
		return newMockServer(env, pos[1], pos[2])
	case "mcp-router":
		if len(pos) != 2 {
			return &usageError{"mcp-router takes the folder to write: octo new mcp-router my-router"}
		}
		return newRouter(env, pos[1])
	}
	names := make([]string, len(templates.Starters))
	for i, s := range templates.Starters {
		names[i] = s.Name
	}
	return &usageError{fmt.Sprintf("unknown starter %q; starters: %s", pos[0], strings.Join(names, ", "))}
}

// newMockServer writes servers/<name>.yaml (and workspace.yaml for a new
// workspace) and says how to connect MCP clients.
func newMockServer(env *Env, dir, name string) error {
	if err := checkServerName(name); err != nil {
		return err
	}
	file := filepath.Join(dir, workspace.ServersDir, name+".yaml")
	if _, err := os.Stat(file); err == nil {
		return fmt.Errorf("%s already exists; pick another name or edit it", file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	settings := filepath.Join(dir, workspace.SettingsFile)
	if _, err := os.Stat(settings); errors.Is(err, fs.ErrNotExist) {
		if err := writeStarterFile("mcp-mock", workspace.SettingsFile, settings); err != nil {
			return err
		}
	}
	if err := writeSchemas(dir, "server", "workspace"); err != nil { // the starter's modelines name them
		return err
	}
	port := workspace.NextPort(dir)
	text, err := templates.RenderMockServer(templates.MockServer{Name: name, Port: port})
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, text, 0o644); err != nil {
		return err
	}
	return printConnect(env.Stdout, dir, name, file, port)
}

// checkServerName refuses names that cannot be a file name or would be read
// as an answer tag.
func checkServerName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return &usageError{"the server name is empty"}
	case strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, "."):
		return &usageError{fmt.Sprintf("server name %q cannot be a file name: no slashes, not starting with a dot", name)}
	case strings.Contains(name, "{{") || strings.ContainsAny(name, "\n\r\t"):
		return &usageError{fmt.Sprintf("server name %q holds {{ or a line break", name)}
	case len(name) > 100:
		return &usageError{"the server name is longer than 100 characters"}
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
	fmt.Fprintf(w, "Wrote %s (port %d).\n\nServe it:\n  %s serve %s\n\nMCP address:\n  %s\n", file, port, bin, shellQuote(dir), url)
	fmt.Fprintf(w, "\nmcpServers settings, over HTTP (while octo serve runs):\n%s\n", indentJSON(byURL))
	fmt.Fprintf(w, "\nmcpServers settings, over stdio (the app starts octo itself):\n%s\n", indentJSON(byCommand))
	return nil
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// newRouter writes the mcp-router starter into dir, which must not hold a
// config yet.
func newRouter(env *Env, dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; pick a new folder", dir)
	}
	files, err := templates.Files("mcp-router")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, files); err != nil {
		return err
	}
	// The starter is the sample, whose modeline points into the repository: point it beside.
	if err := writeSchemas(dir, reference.ConfigSchema); err != nil {
		return err
	}
	if err := pointModeline(filepath.Join(dir, "mcp-router.yaml"), reference.SchemaFile(reference.ConfigSchema)); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote an MCP router flow in %s.\n\nRun it:\n  octo run --config %s\n\nMCP address:\n  http://localhost:8080/mcp (set HTTP_PORT to change the port)\n", dir, shellQuote(dir))
	return nil
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

package cli_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/ports"
)

func TestNewWritesStarters(t *testing.T) {
	t.Run("new alone lists the starters", func(t *testing.T) {
		code, out, _ := runCLI("new")
		if code != 0 || !strings.Contains(out, "mcp-mock") || !strings.Contains(out, "mcp-router") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("a mock server gets 3004, the next one 3005, and how to connect", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "mocks")
		code, out, errs := runCLI("new", "mcp-mock", ws, "Weather mock")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		text, err := os.ReadFile(filepath.Join(ws, "servers", "Weather mock.yaml"))
		if err != nil || !strings.Contains(string(text), "port: 3004") || !strings.Contains(string(text), `name: "Weather mock"`) {
			t.Fatalf("%s %v", text, err)
		}
		if _, err := os.Stat(filepath.Join(ws, "workspace.yaml")); err != nil {
			t.Fatal("no workspace.yaml for a new workspace")
		}
		bin, _ := os.Executable()
		abs, _ := filepath.Abs(ws)
		for _, want := range []string{"http://127.0.0.1:3004/mcp", `"url": "http://127.0.0.1:3004/mcp"`, `"command": "` + jsonEscape(bin), `"serve",`, `"` + jsonEscape(abs) + `",`, `"--stdio"`} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %s:\n%s", want, out)
			}
		}
		if code, out, _ := runCLI("new", "mcp-mock", ws, "Second"); code != 0 || !strings.Contains(out, "http://127.0.0.1:3005/mcp") {
			t.Fatalf("second server: exit %d\n%s", code, out)
		}
		if code, out, errs := runCLI("validate", "--config", ws); code != 0 || !strings.Contains(out, "Second: ok") {
			t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
		}
		if code, _, errs := runCLI("new", "mcp-mock", ws, "Second"); code != 1 || !strings.Contains(errs, "already exists") {
			t.Fatalf("a server written twice: exit %d %s", code, errs)
		}
	})
	t.Run("a router flow is written ready to run", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "router")
		if code, out, errs := runCLI("new", "mcp-router", dir); code != 0 || !strings.Contains(out, "octo run "+dir) {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if code, out, errs := runCLI("validate", "--config", dir); code != 0 {
			t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
		}
		if code, _, errs := runCLI("new", "mcp-router", dir); code != 1 || !strings.Contains(errs, "is not empty") {
			t.Fatalf("a second write: exit %d %s", code, errs)
		}
	})
	t.Run("--port sets the port, and a port another program holds is skipped", func(t *testing.T) {
		holder, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		held := holder.Addr().(*net.TCPAddr).Port
		dir := filepath.Join(t.TempDir(), "api")
		code, out, errs := runCLI("new", "mcp-api", dir, "--port", strconv.Itoa(held+1))
		if code != 0 || !strings.Contains(out, "http://localhost:"+strconv.Itoa(held+1)+"/mcp") || !strings.Contains(out, "claude mcp add --transport http api-tools") {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if text, _ := os.ReadFile(filepath.Join(dir, "mcp-api.yaml")); !strings.Contains(string(text), `default: "`+strconv.Itoa(held+1)+`"`) {
			t.Fatalf("the port is not the HTTP_PORT default:\n%s", text)
		}
		if code, out, errs := runCLI("validate", dir); code != 0 {
			t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
		}
		if got := ports.Free(held, nil); got == held {
			t.Errorf("FreePort gave %d, which another listener holds", held)
		}
		ws := filepath.Join(t.TempDir(), "mocks")
		if code, out, errs := runCLI("new", "mcp-mock", ws, "A", "--port", strconv.Itoa(held)); code != 0 || !strings.Contains(out, "http://127.0.0.1:"+strconv.Itoa(held)+"/mcp") {
			t.Fatalf("mock --port: exit %d\n%s%s", code, out, errs)
		}
		if code, _, errs := runCLI("new", "mcp-mock", ws, "B", "--port", strconv.Itoa(held)); code != 1 || !strings.Contains(errs, "a saved server of "+ws+" uses it already") {
			t.Fatalf("a port taken in the workspace: exit %d %s", code, errs)
		}
		if code, _, errs := runCLI("new", "mcp-api", t.TempDir(), "--port", "70000"); code != 2 || !strings.Contains(errs, "--port 70000 is not a port") {
			t.Fatalf("a bad port: exit %d %s", code, errs)
		}
	})
	t.Run("a mock server waits while another process writes to the workspace", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "mocks")
		held, err := workspace.Lock(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			code, _, errs := runCLI("new", "mcp-mock", ws, "A")
			done <- strconv.Itoa(code) + " " + errs
		}()
		select {
		case got := <-done:
			t.Fatalf("octo new finished (%s) while another process writes", got)
		case <-time.After(300 * time.Millisecond):
		}
		if _, err := os.Stat(workspace.ServerFile(ws, "A")); err == nil {
			t.Fatal("the server's file was written while another process writes")
		}
		held.Unlock()
		if got := <-done; got != "0 " {
			t.Fatalf("after the other process let go: exit %s", got)
		}
		if _, err := os.Stat(workspace.ServerFile(ws, "A")); err != nil {
			t.Fatal(err)
		}
	})
	bad := []struct{ name, want string }{
		{"", "the server name is empty"},
		{"a/b", "cannot be a file name"},
		{".hidden", "cannot be a file name"},
		{"{{token}}", "holds {{"},
		{"get_workspace\r\x1b[8m", "holds a control or invisible character"},
		{"abc\u202edcba", "holds a control or invisible character"},
	}
	for _, c := range bad {
		t.Run("the server name "+c.name+" is refused", func(t *testing.T) {
			code, _, errs := runCLI("new", "mcp-mock", t.TempDir(), c.name)
			if code != 2 || !strings.Contains(errs, c.want) || strings.ContainsAny(errs, "\x1b\r\u202e") {
				t.Fatalf("exit %d: %q", code, errs)
			}
		})
	}
	t.Run("an unknown starter is a usage error", func(t *testing.T) {
		if code, _, errs := runCLI("new", "mcp-mok", "x"); code != 2 || !strings.Contains(errs, `unknown starter "mcp-mok"`) {
			t.Fatalf("exit %d: %s", code, errs)
		}
	})
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

package workspace_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestEditsReachARunningWorkspace(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"workspace.yaml": "variables: { token: t1 }", "servers/Echo.yaml": echoServer})
	r := run(t, dir, workspace.Options{})
	_, url := r.next(t)
	var mu sync.Mutex
	changed := 0
	cs := runtimetest.ConnectMCP(t, url, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		mu.Lock()
		changed++
		mu.Unlock()
	}})
	file := filepath.Join(dir, "servers", "Echo.yaml")
	edit := func(t *testing.T, from, to string) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("renaming a tool is announced and the next list shows it", func(t *testing.T) {
		edit(t, "name: get_weather", "name: get_forecast")
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := changed
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no tools/list_changed")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got := runtimetest.ToolNames(t, cs); got[0] != "get_forecast" {
			t.Fatalf("tools = %v", got)
		}
	})
	t.Run("a broken edit is reported and the last good version keeps serving", func(t *testing.T) {
		edit(t, "description: Echo", "descripton: Echo")
		r.waitLog(t, `unknown key \"descripton\"`)
		r.waitLog(t, "edit not applied; the last good version keeps serving")
		if got := callText(t, cs, "echo", map[string]any{"text": "still here"}); got != "still here" {
			t.Fatalf("answer = %q", got)
		}
		edit(t, "descripton: Echo", "description: Echo")
	})
	t.Run("a file written half, paused past the settle time, is not applied", func(t *testing.T) {
		whole, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		half := whole[:bytes.Index(whole, []byte("mcp:"))] // name, kind, port: the tools not written yet
		if err := os.WriteFile(file, half, 0o644); err != nil {
			t.Fatal(err)
		}
		r.waitLog(t, "the file lacks mcp, which the version serving has: is it still being written?")
		if got := callText(t, cs, "echo", map[string]any{"text": "still here"}); got != "still here" {
			t.Fatalf("answer = %q", got)
		}
		if err := os.WriteFile(file, whole, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a variable edited in workspace.yaml reaches the answers", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{"workspace.yaml": "variables: { token: t2 }"})
		deadline := time.Now().Add(10 * time.Second)
		for callText(t, cs, "get_forecast", nil) != "sunny t2 ${HOME}" {
			if time.Now().After(deadline) {
				t.Fatalf("answer still %q", callText(t, cs, "get_forecast", nil))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("a new file starts a server", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{"servers/Second.yaml": strings.Replace(echoServer, "name: Echo", "name: Second", 1)})
		name, url := r.next(t)
		if name != "Second" {
			t.Fatalf("ready %s", name)
		}
		if got := callText(t, runtimetest.ConnectMCP(t, url, nil), "echo", map[string]any{"text": "hi"}); got != "hi" {
			t.Fatalf("answer = %q", got)
		}
	})
	t.Run("a new port restarts the server there", func(t *testing.T) {
		port := freePort(t)
		edit(t, "port: 0", "port: "+strconv.Itoa(port))
		name, url := r.next(t)
		if name != "Echo" || !strings.Contains(url, ":"+strconv.Itoa(port)+"/mcp") {
			t.Fatalf("ready %s at %s", name, url)
		}
		if got := callText(t, runtimetest.ConnectMCP(t, url, nil), "echo", map[string]any{"text": "moved"}); got != "moved" {
			t.Fatalf("answer = %q", got)
		}
	})
	t.Run("a removed file stops its server", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, "servers", "Second.yaml")); err != nil {
			t.Fatal(err)
		}
		r.waitLog(t, "server stopped: its file was removed")
	})
}

func TestCorsLetsBrowsersOnOtherOriginsIn(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"servers/Open.yaml":   "name: Open\nport: 0\nmcp: { cors: true }",
		"servers/Closed.yaml": "name: Closed\nport: 0",
	})
	r := run(t, dir, workspace.Options{})
	urls := map[string]string{}
	for range 2 {
		name, url := r.next(t)
		urls[name] = url
	}
	cases := []struct {
		server string
		status int
		origin string
	}{
		{"Open", http.StatusNoContent, "https://app.example.com"},
		{"Closed", http.StatusForbidden, ""},
	}
	for _, c := range cases {
		t.Run(c.server+" answers a preflight from another origin with "+strconv.Itoa(c.status), func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodOptions, urls[c.server], nil)
			req.Header.Set("Origin", "https://app.example.com")
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status || resp.Header.Get("Access-Control-Allow-Origin") != c.origin {
				t.Fatalf("status %d, allow-origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			}
		})
	}
	t.Run("a rebound host is refused even with cors", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, urls["Open"], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = "evil.example.com"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

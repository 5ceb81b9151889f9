package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// copyWeatherMock copies the weather sample to a temporary workspace on a
// free port and returns it with the server file and MCP address.
func copyWeatherMock(t *testing.T) (dir, file, url string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join(repoRoot(), "samples", "weather-mock")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "servers", "Weather mock.yaml")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	if err := os.WriteFile(file, []byte(strings.Replace(string(text), "port: 3004", "port: "+port, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file, "http://127.0.0.1:" + port + "/mcp"
}

// TestALiveEditRenamingAToolReachesAConnectedClient edits the saved server
// while a client is connected: it hears tools/list_changed and the next
// tools/list shows the new name.
func TestALiveEditRenamingAToolReachesAConnectedClient(t *testing.T) {
	dir, file, url := copyWeatherMock(t)
	p := startOcto(t, nil, "serve", dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	changed := make(chan struct{}, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-live", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.Log())
	}
	defer cs.Close()
	text, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(text), "name: get_weather", "name: get_forecast", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatalf("no tools/list_changed\n%s", p.Log())
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || res.Tools[0].Name != "get_forecast" {
		t.Fatalf("%s %v", jsonText(res), err)
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Nice"}})
	if err != nil || !strings.Contains(call.Content[0].(*mcp.TextContent).Text, `"Nice"`) {
		t.Fatalf("%s %v", jsonText(call), err)
	}
}

// TestRunServesAWorkspaceFolder checks that `octo run --config` recognises
// a workspace and serves its saved servers.
func TestRunServesAWorkspaceFolder(t *testing.T) {
	dir, _, url := copyWeatherMock(t)
	p := startOcto(t, nil, "run", "--config", dir)
	if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(p.Log()); m == nil || m[1] != url {
		t.Fatalf("want %s in the log:\n%s", url, p.Log())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-run", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Bern"}}); err != nil {
		t.Fatal(err)
	}
}

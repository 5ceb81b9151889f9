package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The TypeScript SDK v2 client (@modelcontextprotocol/client), pinned to 2026-07-28, starts the
// router, the mock and the agent bridge over stdio as a client starts a local server: each
// answers server/discover, lists its tools and answers a call at that revision.
func TestTheTypeScriptSDKv2ConnectsOverStdioAt20260728(t *testing.T) {
	node, dir := typeScriptSDK(t)
	bridge, _, _ := bridgeEnv(t)
	bridge = append(bridge, "OCTO_APP="+filepath.Join(t.TempDir(), "no-such-app"))
	for _, c := range []struct {
		name, tool, arguments string
		env                   []string
		args                  []string
		server, listed, text  string
		isError               bool
	}{
		{"the router", "forecast", `{"city":"Paris"}`, nil, []string{"run", "--config", "samples/mcp-router-stdio"},
			"weather-stdio", "forecast", `{"city":"Paris","summary":"Sunny, 24C"}`, false},
		{"the mock", "get_weather", `{"city":"Paris"}`, nil, []string{"serve", "samples/weather-mock", "Weather mock", "--stdio"},
			"Weather mock", "get_weather", "", false},
		{"the agent bridge", "get_workspace", `{}`, bridge, []string{"mcp"},
			"octo", "get_workspace", "Octo is not running and could not be started (", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := append([]string{"stdio-v2-client.mjs", c.tool, c.arguments, octoBin}, c.args...)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir, cmd.Env, cmd.WaitDelay = dir, append(os.Environ(), c.env...), 5*time.Second
			// octo resolves the samples from the repository, the script from its own folder.
			for i, a := range cmd.Args {
				if strings.HasPrefix(a, "samples/") {
					cmd.Args[i] = filepath.Join(repoRoot(), a)
				}
			}
			out, err := cmd.CombinedOutput()
			summary, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "ok: ")
			if err != nil || !ok {
				t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			var got struct {
				Version, Server, Text string
				Tools                 []string
				IsError               bool
			}
			if err := json.Unmarshal([]byte(summary), &got); err != nil {
				t.Fatalf("summary %q: %v", summary, err)
			}
			if got.Version != "2026-07-28" || got.Server != c.server || !slices.Contains(got.Tools, c.listed) ||
				!strings.Contains(got.Text, c.text) || got.IsError != c.isError {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

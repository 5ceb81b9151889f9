package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The interactive login of an MCP client, offline: the official TypeScript SDK's OAuth client
// (its auth flow and example InMemoryOAuthClientProvider) meets samples/mcp-oauth's 401,
// discovers octo auth-server from the protected resource metadata, registers, logs in with
// PKCE, and calls the tools as the user auth-server approved.
func TestAnMCPClientLogsInThroughOctoAuthServer(t *testing.T) {
	node, dir := typeScriptSDK(t)
	asPort := strconv.Itoa(freePort(t))
	issuer := "http://localhost:" + asPort
	startOctoUntil(t, nil, func(line string) bool { return strings.Contains(line, "listening on") },
		"auth-server", "--key", devKey, "--port", asPort, "--user", "carol", "--scopes", "weather.read weather.admin")
	port := strconv.Itoa(freePort(t))
	resource := "http://localhost:" + port + "/mcp"
	startOcto(t, []string{"HTTP_PORT=" + port, "MCP_RESOURCE=" + resource, "AUTH_ISSUER=" + issuer}, "run", "--config", "samples/mcp-oauth")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth-login.mjs", resource)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node oauth-login.mjs: %v\n%s%s", err, out, stderr)
	}
	var got struct {
		Tools     []string
		Whoami    string
		Authorize string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !slices.Equal(got.Tools, []string{"forecast", "whoami"}) || got.Whoami != `{"scope":"weather.read","sub":"carol"}` || got.Authorize != issuer+"/authorize" {
		t.Fatalf("the login: %+v", got)
	}
}

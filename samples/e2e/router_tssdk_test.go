package e2e

import "testing"

// TestTypeScriptSDKClientUsesTheRouterSample runs node/router-client.mjs, the
// official TypeScript SDK client doing the same checks as the Go one, against
// the mcp-router sample. Node is part of the machine, so its absence fails
// the test rather than skipping it: a skip would hide a broken interop suite.
func TestTypeScriptSDKClientUsesTheRouterSample(t *testing.T) {
	node, dir := typeScriptSDK(t)
	base, _ := runSample(t, "mcp-router")
	runClientScript(t, node, dir, "router-client.mjs", base)
}

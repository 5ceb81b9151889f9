package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestTypeScriptSDKClientAnswersURLElicitations runs node/url-elicit-client.mjs against the
// calendar sample served by the built binary: the official TypeScript SDK client is sent to a
// sign-in page (URL-mode elicitation) and accepts, declines or cancels; an accepted link is
// followed by notifications/elicitation/complete; list_events answers -32042 until its sign-in
// is done, and a client declaring form mode only is never sent a link.
func TestTypeScriptSDKClientAnswersURLElicitations(t *testing.T) {
	node, dir := typeScriptSDK(t)
	url, p := serveWorkspace(t, "samples/calendar-mock")
	runClientScript(t, node, dir, "url-elicit-client.mjs", strings.TrimSuffix(url, "/mcp"))

	// The server's side: the link went out as elicitation/create and the completion as a
	// notification, summarized by its elicitationId.
	waitLog(t, p, "Calendar mock  out elicitation/create")
	waitLog(t, p, "Calendar mock  out notifications/elicitation/complete")
	if !regexp.MustCompile(`Calendar mock  out notifications/elicitation/complete [0-9a-f]{32} `).MatchString(p.Log()) {
		t.Errorf("the log does not name the completed elicitation:\n%s", p.Log())
	}
}

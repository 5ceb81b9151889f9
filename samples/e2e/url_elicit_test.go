package e2e

import (
	"regexp"
	"strconv"
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
	url, p := serveCalendarMock(t)
	runClientScript(t, node, dir, "url-elicit-client.mjs", strings.TrimSuffix(url, "/mcp"))

	// The server's side: the link went out as elicitation/create and the completion as a
	// notification, summarized by its elicitationId.
	waitLog(t, p, "Calendar mock  out elicitation/create")
	waitLog(t, p, "Calendar mock  out notifications/elicitation/complete")
	if !regexp.MustCompile(`Calendar mock  out notifications/elicitation/complete [0-9a-f]{32} `).MatchString(p.Log()) {
		t.Errorf("the log does not name the completed elicitation:\n%s", p.Log())
	}
}

// serveCalendarMock serves samples/calendar-mock with the built binary on a free port and
// returns its Streamable HTTP endpoint.
func serveCalendarMock(t *testing.T) (string, *proc) {
	t.Helper()
	p := startOcto(t, nil, "serve", "samples/calendar-mock", "--port", strconv.Itoa(freePort(t)))
	m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(p.Log())
	if m == nil {
		t.Fatalf("no address in the log:\n%s", p.Log())
	}
	return m[1], p
}

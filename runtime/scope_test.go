package runtime

import (
	"regexp"
	"strings"
	"testing"
)

// A scope is a name NATS takes for a bucket or a stream, and two scopes never share one.
func TestScopeNamesAreSafeAndApart(t *testing.T) {
	safe := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	seen := map[string]string{}
	for _, s := range []string{"reports_mcp_mcp-router", "a.b_mcp_x", "a-b_mcp_x", "a b_mcp_x", "wé_mcp_x", strings.Repeat("long", 40), strings.Repeat("long", 40) + "er"} {
		got := scopeName(s)
		if !safe.MatchString(got) {
			t.Errorf("scope of %q is %q", s, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q share the scope %q", s, other, got)
		}
		seen[got] = s
	}
	if got := scopeName("reports_mcp_mcp-router"); got != "reports_mcp_mcp-router" {
		t.Errorf("a clean name is kept: %q", got)
	}
}

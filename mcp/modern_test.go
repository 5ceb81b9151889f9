package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

// A 2026-07-28 request is checked in the order the revision gives: a header that differs from
// _meta is a mismatch (-32020) even when _meta names a revision the server does not serve, and
// only a request that agrees with itself learns the revision is not served (-32022).
func TestModernHeaderMismatchComesBeforeTheVersion(t *testing.T) {
	s := mcptest.RouterServer(t)
	tests := []struct {
		name, header, meta string
		status, code       int
	}{
		{"header 2026-07-28, _meta an unknown revision", mcp.Version20260728, "v999.0.0", http.StatusBadRequest, mcp.CodeHeaderMismatch},
		{"both an unknown revision", "v999.0.0", "v999.0.0", http.StatusBadRequest, mcp.CodeUnsupportedVersion},
		{"both 2026-07-28", mcp.Version20260728, mcp.Version20260728, http.StatusOK, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mcptest.ModernPost("server/discover", "", "{}")
			req.Body = []byte(strings.Replace(string(req.Body), `"`+mcp.Version20260728+`"`, `"`+tt.meta+`"`, 1))
			req.Header.Set(mcp.HeaderProtocolVersion, tt.header)
			resp := s.ServeStateless(t.Context(), req)
			var r struct {
				Error *struct{ Code int }
			}
			if err := json.Unmarshal(resp.Body, &r); err != nil {
				t.Fatalf("answer %q: %v", resp.Body, err)
			}
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			if resp.Status != tt.status || code != tt.code {
				t.Fatalf("got HTTP %d, code %d (%s), want HTTP %d, code %d", resp.Status, code, resp.Body, tt.status, tt.code)
			}
		})
	}
}

package jsonscan_test

import (
	"encoding/json"
	"testing"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f", "tab\t nl\n cr\r",
		"São Paulo", "bad \xff utf8", "sep \u2028 \u2029", "<html>&"} {
		t.Run("the string "+s+" decodes back the same way encoding/json does", func(t *testing.T) {
			got := jsonscan.AppendString(nil, s)
			var back, want string
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("invalid JSON %s: %v", got, err)
			}
			std, _ := json.Marshal(s)
			_ = json.Unmarshal(std, &want)
			if back != want {
				t.Fatalf("decoded %q, encoding/json gives %q", back, want)
			}
		})
	}
}

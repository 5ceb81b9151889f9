package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// jsonText is JSON text written as w (a setting such as a tool's
// inputSchema), each `${VAR}` in it a JSON value where it stands, so that no
// value can change the JSON around it, whatever quotes it holds:
//
//   - inside a string, the value is part of the string, escaped;
//   - elsewhere, a value that is a JSON number, true, false or null is that
//     literal, and anything else (the empty value too) a string.
func jsonText(w config.Interpolation) (string, *problem) {
	var b strings.Builder
	inString, escaped := false, false
	for _, p := range w.Parts {
		if p.Var == "" {
			for i := 0; i < len(p.Text); i++ {
				switch c := p.Text[i]; {
				case escaped:
					escaped = false
				case inString && c == '\\':
					escaped = true
				case c == '"':
					inString = !inString
				}
			}
			b.WriteString(p.Text)
			continue
		}
		switch {
		case escaped:
			return "", &problem{p.At, fmt.Sprintf(escapesValue, p.Var)}
		case inString:
			q := jsonString(p.Text)
			b.WriteString(q[1 : len(q)-1])
		case p.Text == "true" || p.Text == "false" || p.Text == "null" || jsonNumber.MatchString(p.Text):
			b.WriteString(p.Text)
		default:
			b.WriteString(jsonString(p.Text))
		}
	}
	return b.String(), nil
}

// jsonString is s as a JSON string, <, > and & as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxEnvFileBytes bounds an env file: a few lines of variables are expected.
const maxEnvFileBytes = 1 << 20

// ReadEnvFile reads a file of variables, the format tools call .env: a line `NAME=value`
// (`export ` before it is allowed), a value unquoted (spaces around it dropped, a ` #` starting a
// comment), 'single-quoted' (as written) or "double-quoted" (with \n, \t, \" and \\); blank
// lines and lines starting with # are skipped. Values are never interpolated. Every mistake is
// a Diag at its line and column.
func ReadEnvFile(path string) (map[string]string, Diags) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Diags{{File: path, Msg: "cannot read the env file: " + err.Error()}}
	}
	if len(data) > maxEnvFileBytes {
		return nil, Diags{{File: path, Msg: fmt.Sprintf("the env file is larger than %d bytes", maxEnvFileBytes)}}
	}
	out := map[string]string{}
	var ds Diags
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxEnvFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		trimmed = strings.TrimPrefix(trimmed, "export ")
		name, value, ok := strings.Cut(trimmed, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
			ds = append(ds, Diag{File: path, Line: n, Col: col, Msg: "expected NAME=value"})
			continue
		case !validEnvName(name):
			ds = append(ds, Diag{File: path, Line: n, Col: col, Msg: fmt.Sprintf("%q is not a variable name: letters, digits and _, not starting with a digit", name)})
			continue
		}
		v, err := envValue(strings.TrimSpace(value))
		if err != nil {
			ds = append(ds, Diag{File: path, Line: n, Col: col + strings.Index(trimmed, "=") + 1, Msg: fmt.Sprintf("the value of %s: %v", name, err)})
			continue
		}
		out[name] = v
	}
	if len(ds) > 0 {
		return nil, ds
	}
	return out, nil
}

// envValue is a written value as it is meant.
func envValue(v string) (string, error) {
	switch {
	case v == "":
		return "", nil
	case v[0] == '\'':
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", fmt.Errorf("the quote ' is not closed")
		}
		return v[1 : end+1], checkRest(v[end+2:])
	case v[0] == '"':
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '"':
				s, err := strconv.Unquote(v[:i+1])
				if err != nil {
					return "", fmt.Errorf("a double-quoted value with an escape Go does not know (use \\n, \\t, \\\" or \\\\)")
				}
				return s, checkRest(v[i+1:])
			}
		}
		return "", fmt.Errorf("the quote \" is not closed")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}

// checkRest allows only a comment after a quoted value.
func checkRest(rest string) error {
	if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
		return fmt.Errorf("%q follows the closing quote", rest)
	}
	return nil
}

package reference

import "bytes"

// Modeline is the first line that names a YAML file's schema for yaml-language-server (the VS
// Code YAML extension and other editors): a path relative to the file, or a URL.
func Modeline(schema string) string { return modelinePrefix + schema }

const modelinePrefix = "# yaml-language-server: $schema="

// WithModeline returns text with its first line naming schema: a modeline it starts with is
// replaced, else one is added.
func WithModeline(text []byte, schema string) []byte {
	line := []byte(Modeline(schema) + "\n")
	if bytes.HasPrefix(text, []byte(modelinePrefix)) {
		if _, rest, ok := bytes.Cut(text, []byte("\n")); ok {
			return append(line, rest...)
		}
		return line
	}
	return append(line, text...)
}

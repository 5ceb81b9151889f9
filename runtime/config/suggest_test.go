package config

import "testing"

func TestSuggest(t *testing.T) {
	keys := []string{"methods", "path", "port", "headers", "timeout"}
	tests := []struct {
		name       string
		in         string
		candidates []string
		want       string
	}{
		{"a dropped letter is found", "methds", keys, "methods"},
		{"two swapped letters count as one typo", "prot", []string{"path", "port"}, "port"},
		{"case is ignored", "PORT", keys, "port"},
		{"a missing plural is found", "flow", []string{"service", "flows"}, "flows"},
		{"the start of a longer name is found", "head", keys, "headers"},
		{"a long name tolerates more typos", "HTTP_PROT", []string{"HTTP_PORT", "HTTP_HOST"}, "HTTP_PORT"},
		{"the closest of several near names wins", "pth", []string{"pat", "path"}, "path"},
		{"an unrelated name gets nothing", "zzzzzz", keys, ""},
		{"one letter is not a typo of another", "a", []string{"b"}, ""},
		{"a short name with two edits is too far", "ab", []string{"cd"}, ""},
		{"nothing is suggested from an empty list", "port", nil, ""},
		{"an empty name gets nothing", "", keys, ""},
		{"a word in another number is meant before a longer name it starts", "retry", []string{"retryBackoff", "retries", "retryNonIdempotent"}, "retries"},
		{"a singular of -ies is found", "policy", []string{"policies", "police"}, "policies"},
		{"a word of a camelCase name is found", "backoff", []string{"retries", "retryBackoff"}, "retryBackoff"},
		{"a word of a kebab-case name is found", "agent", []string{"console-port", "agent-port"}, "agent-port"},
		{"a typo still beats a word", "pot", []string{"port", "potLimit"}, "port"},
		{"non-ASCII names are compared by letter", "größe", []string{"grösse", "größer"}, "größer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Suggest(tt.in, tt.candidates); got != tt.want {
				t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
		{"abcd", "acbd", 1},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		t.Run(tt.a+" to "+tt.b, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("reversed: got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestUnknown(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		known []string
		want  string
	}{
		{"a close name is suggested", "set-paylod", []string{"log", "set-payload"}, `unknown block type "set-paylod" (did you mean "set-payload"?)`},
		{"without a close name the choices are listed", "zzz", []string{"log", "set-payload"}, `unknown block type "zzz"; expected one of: log, set-payload`},
		{"with no choices the name alone is reported", "zzz", nil, `unknown block type "zzz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unknown("block type", tt.in, tt.known); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

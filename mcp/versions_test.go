package mcp

import (
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name      string
		policy    Versions
		requested string
		want      string
	}{
		{"the router echoes 2025-06-18", RouterVersions, "2025-06-18", "2025-06-18"},
		{"the router echoes 2025-03-26", RouterVersions, "2025-03-26", "2025-03-26"},
		{"the router echoes 2024-11-05", RouterVersions, "2024-11-05", "2024-11-05"},
		{"the router answers 2025-06-18 to 2025-11-25, which it cannot stream", RouterVersions, "2025-11-25", "2025-06-18"},
		{"the router answers 2025-06-18 to a future version", RouterVersions, "2026-07-28", "2025-06-18"},
		{"the router assumes 2024-11-05 when no version is sent", RouterVersions, "", "2024-11-05"},
		{"the mock echoes 2025-11-25", MockVersions, "2025-11-25", "2025-11-25"},
		{"the mock echoes 2024-11-05", MockVersions, "2024-11-05", "2024-11-05"},
		{"the mock answers its newest to an unknown version", MockVersions, "1999-01-01", "2025-11-25"},
		{"the mock answers its newest when no version is sent", MockVersions, "", "2025-11-25"},
		{"a policy without fallbacks answers its newest", Versions{Supported: []string{"b", "a"}}, "z", "b"},
		{"a policy without fallbacks answers its newest to nothing", Versions{Supported: []string{"b", "a"}}, "", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.Negotiate(tt.requested); got != tt.want {
				t.Fatalf("Negotiate(%q) = %q, want %q", tt.requested, got, tt.want)
			}
		})
	}
}

func TestSpeaks(t *testing.T) {
	tests := []struct {
		name   string
		policy Versions
		rev    string
		want   bool
	}{
		{"the router speaks 2025-03-26", RouterVersions, "2025-03-26", true},
		{"the router does not speak 2025-11-25", RouterVersions, "2025-11-25", false},
		{"the mock speaks 2025-11-25", MockVersions, "2025-11-25", true},
		{"nobody speaks the empty version", MockVersions, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.Speaks(tt.rev); got != tt.want {
				t.Fatalf("Speaks(%q) = %v, want %v", tt.rev, got, tt.want)
			}
		})
	}
}

func TestVersionsCheck(t *testing.T) {
	tests := []struct {
		name    string
		policy  Versions
		wantErr string
	}{
		{"the router policy is consistent", RouterVersions, ""},
		{"the mock policy is consistent", MockVersions, ""},
		{"an empty policy is refused", Versions{}, "no supported protocol version"},
		{"a fallback the policy does not speak is refused", Versions{Supported: []string{"a"}, Unknown: "b"}, `unknown version "b"`},
		{"an absent answer the policy does not speak is refused", Versions{Supported: []string{"a"}, Absent: "b"}, `absent version "b"`},
		{"a version listed twice is refused", Versions{Supported: []string{"a", "a"}}, `"a" listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Check() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestBatchable(t *testing.T) {
	tests := []struct {
		name string
		rev  string
		want bool
	}{
		{"an unknown version may batch", "", true},
		{"2025-03-26 may batch", Version20250326, true},
		{"2024-11-05 may batch", Version20241105, true},
		{"2025-06-18 may not batch", Version20250618, false},
		{"2025-11-25 may not batch", Version20251125, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchable(tt.rev); got != tt.want {
				t.Fatalf("batchable(%q) = %v", tt.rev, got)
			}
		})
	}
}

package http

import (
	"net/netip"
	"strings"
	"testing"
)

var loopback = netip.MustParseAddr("127.0.0.1")

func fuzzGuard() *guard {
	return &guard{
		origins: map[string]bool{"https://app.example.com": true},
		cors:    true,
		hosts:   map[string]bool{"mcp.internal": true},
	}
}

// FuzzGuardDecide feeds arbitrary Origin and Host values: nothing may panic, and nothing may
// pass unless its Host is allowed and its Origin is absent, listed or the request's own.
func FuzzGuardDecide(f *testing.F) {
	for _, seed := range []struct {
		method, origin, host string
		preflight            bool
	}{
		{"POST", "", "localhost:8080", false},
		{"POST", "http://localhost:8080", "localhost:8080", false},
		{"OPTIONS", "https://app.example.com", "127.0.0.1:1", true},
		{"POST", "https://evil.example", "[::1]:80", false},
		{"GET", "null", "evil.example", false},
		{"GET", "http://[::1", "[::1", false},
		{"GET", "://", ":", false},
		{"GET", "HTTPS://APP.EXAMPLE.COM", "mcp.internal:443", false},
		{"GET", "http://127.0.0.1:9", "127.0.0.1:9", false},
		{"GET", "\xff\xfe", "\x00", true},
	} {
		f.Add(seed.method, seed.origin, seed.host, seed.preflight)
	}
	g := fuzzGuard()
	f.Fuzz(func(t *testing.T, method, origin, host string, preflightAsked bool) {
		var origins []string
		if origin != "" {
			origins = []string{origin}
		}
		v := g.decide(method, origins, host, preflightAsked, loopback)
		if v == badOrigin || v == badHost {
			_ = clip(origin + host) // what the refusal would write must not panic either
			return
		}
		if !g.hostAllowed(host, loopback) {
			t.Fatalf("host %q passed (verdict %d)", host, v)
		}
		listed := g.origins[strings.ToLower(origin)]
		if origin != "" && !listed && !sameOrigin(origin, host) {
			t.Fatalf("origin %q passed for host %q (verdict %d)", origin, host, v)
		}
		if (v == passCORS || v == preflight) != listed {
			t.Fatalf("origin %q got verdict %d, listed %v", origin, v, listed)
		}
		if norm, err := normaliseOrigin(origin); err == nil {
			if again, err := normaliseOrigin(norm); err != nil || again != norm {
				t.Fatalf("normalising %q is not stable: %q then %q (%v)", origin, norm, again, err)
			}
		}
	})
}

func BenchmarkGuardDecide(b *testing.B) {
	g := fuzzGuard()
	cases := []struct {
		name    string
		origins []string
		host    string
	}{
		{"no origin", nil, "localhost:8080"},
		{"same origin", []string{"http://localhost:8080"}, "localhost:8080"},
		{"listed origin", []string{"https://app.example.com"}, "127.0.0.1:8080"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v := g.decide("POST", c.origins, c.host, false, loopback); v == badOrigin || v == badHost {
					b.Fatal(v)
				}
			}
		})
	}
}

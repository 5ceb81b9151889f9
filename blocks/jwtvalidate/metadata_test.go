package jwtvalidate

import (
	"strings"
	"testing"
)

func TestMetadataJSON(t *testing.T) {
	cases := []struct {
		name string
		m    Metadata
		want string
	}{
		{"the minimal document advertises the header bearer method",
			Metadata{Resource: testAudience, AuthorizationServers: []string{testIssuer}, ScopesSupported: []string{testScope}},
			`{"resource":"https://mcp.example.net/mcp","authorization_servers":["https://login.example.net"],` +
				`"scopes_supported":["inventory.read"],"bearer_methods_supported":["header"]}`},
		{"optional names and documentation are encoded when set",
			Metadata{Resource: "http://127.0.0.1:8080/mcp", AuthorizationServers: []string{"http://localhost:9000", testIssuer},
				BearerMethodsSupported: []string{"header"}, ResourceName: "Inventory", ResourceDocumentation: "https://docs.example.net/inventory"},
			`{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["http://localhost:9000","https://login.example.net"],` +
				`"bearer_methods_supported":["header"],"resource_name":"Inventory","resource_documentation":"https://docs.example.net/inventory"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.m.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("JSON =\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

func TestMetadataValidate(t *testing.T) {
	valid := func(edit func(*Metadata)) Metadata {
		m := Metadata{Resource: testAudience, AuthorizationServers: []string{testIssuer}}
		edit(&m)
		return m
	}
	cases := []struct {
		name string
		m    Metadata
		want []string
	}{
		{"a missing resource is refused", valid(func(m *Metadata) { m.Resource = "" }), []string{"resource: required"}},
		{"a plain http resource off loopback is refused", valid(func(m *Metadata) { m.Resource = "http://mcp.example.net/mcp" }),
			[]string{"resource: must be an https url"}},
		{"a resource with an uppercase host is refused", valid(func(m *Metadata) { m.Resource = "https://MCP.example.net/mcp" }),
			[]string{"resource: use the canonical form https://mcp.example.net/mcp"}},
		{"a resource with a fragment is refused", valid(func(m *Metadata) { m.Resource = testAudience + "#top" }),
			[]string{"resource: must not have a fragment"}},
		{"a resource with a query is refused", valid(func(m *Metadata) { m.Resource = testAudience + "?tenant=a" }),
			[]string{"resource: must not have a query"}},
		{"no authorization server is refused", valid(func(m *Metadata) { m.AuthorizationServers = nil }),
			[]string{"authorizationServers: required"}},
		{"a plain http authorization server off loopback is refused",
			valid(func(m *Metadata) { m.AuthorizationServers = []string{"http://login.example.net"} }),
			[]string{"authorizationServers: http://login.example.net: must be an https url"}},
		{"a repeated authorization server is refused",
			valid(func(m *Metadata) { m.AuthorizationServers = []string{testIssuer, testIssuer} }),
			[]string{"authorizationServers: https://login.example.net is listed twice"}},
		{"an invalid scope is refused", valid(func(m *Metadata) { m.ScopesSupported = []string{`in"valid`} }),
			[]string{`scopesSupported: "in\"valid" is not a valid scope`}},
		{"a query bearer method is refused", valid(func(m *Metadata) { m.BearerMethodsSupported = []string{"header", "query"} }),
			[]string{`bearerMethodsSupported: "query" is not supported`}},
		{"a relative documentation url is refused", valid(func(m *Metadata) { m.ResourceDocumentation = "/docs" }),
			[]string{"resourceDocumentation: must be an absolute http(s) url"}},
		{"every problem is reported at once", Metadata{ScopesSupported: []string{""}},
			[]string{"resource: required", "authorizationServers: required", "scopesSupported:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate()
			if err == nil {
				t.Fatal("Validate accepted the document")
			}
			if _, jerr := tc.m.JSON(); jerr == nil {
				t.Fatal("JSON encoded an invalid document")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\ndoes not contain %q", err, want)
				}
			}
		})
	}
}

func TestWellKnownPaths(t *testing.T) {
	const root = "/.well-known/oauth-protected-resource"
	cases := []struct {
		name, resource, wantInserted, wantURL, wantErr string
	}{
		{"a resource with a path gets the path inserted after the well-known prefix",
			testAudience, root + "/mcp", testMetadataURL, ""},
		{"a nested path is kept whole", "https://mcp.example.net/tenants/a/mcp", root + "/tenants/a/mcp",
			"https://mcp.example.net" + root + "/tenants/a/mcp", ""},
		{"a resource without a path uses the root path", "https://mcp.example.net", root, "https://mcp.example.net" + root, ""},
		{"a lone trailing slash counts as no path", "https://mcp.example.net/", root, "https://mcp.example.net" + root, ""},
		{"a loopback http resource keeps its port", "http://127.0.0.1:8080/mcp", root + "/mcp",
			"http://127.0.0.1:8080" + root + "/mcp", ""},
		{"a resource without a scheme is refused", "mcp.example.net/mcp", "", "", "resource: must be an https url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inserted, gotRoot, err := WellKnownPaths(tc.resource)
			metadataURL, uerr := MetadataURL(tc.resource)
			if tc.wantErr != "" {
				if err == nil || uerr == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("errors = %v, %v; want %q from both", err, uerr, tc.wantErr)
				}
				return
			}
			if err != nil || uerr != nil {
				t.Fatalf("errors = %v, %v", err, uerr)
			}
			if inserted != tc.wantInserted || gotRoot != root || metadataURL != tc.wantURL {
				t.Fatalf("got %q, %q, %q; want %q, %q, %q", inserted, gotRoot, metadataURL, tc.wantInserted, root, tc.wantURL)
			}
			if err := checkEndpoint(metadataURL); err != nil {
				t.Fatalf("the metadata url would not pass as resourceMetadataUrl: %v", err)
			}
		})
	}
}

package jwtvalidate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// WellKnownPrefix is the RFC 9728 well-known path for protected resource metadata.
const WellKnownPrefix = "/.well-known/oauth-protected-resource"

// Metadata is an OAuth 2.0 Protected Resource Metadata document (RFC 9728) as MCP clients read it.
type Metadata struct {
	// Resource is the canonical URL clients connect to, e.g. https://mcp.example.net/mcp.
	Resource string `json:"resource" yaml:"resource" doc:"The canonical URL clients connect to: https (http on loopback), lowercase scheme and host, no query or fragment." example:"https://mcp.example.net/mcp"`
	// AuthorizationServers are the issuer URLs of the authorization servers that mint tokens.
	AuthorizationServers []string `json:"authorization_servers" yaml:"authorizationServers" doc:"The issuer URLs of the authorization servers that mint tokens for this resource; at least one."`
	// ScopesSupported lists the scopes this resource understands.
	ScopesSupported []string `json:"scopes_supported,omitempty" yaml:"scopesSupported" doc:"The scopes this resource understands."`
	// BearerMethodsSupported may only be ["header"]; empty means ["header"].
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty" yaml:"bearerMethodsSupported" doc:"How tokens may be sent: only header (the default); MCP takes tokens only in the Authorization header."`
	// ResourceName is a human-readable name for the resource.
	ResourceName string `json:"resource_name,omitempty" yaml:"resourceName" doc:"A human-readable name for the resource."`
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty" yaml:"resourceDocumentation" doc:"A URL of documentation for developers (absolute http or https)."`
}

// Validate reports every problem in the document at once, each prefixed by its yaml key.
func (m Metadata) Validate() error {
	var errs []error
	add := func(key string, err error) {
		if err != nil {
			errs = append(errs, &SettingError{Key: key, Err: err})
		}
	}
	add("resource", checkResource(m.Resource))
	add("authorizationServers", checkIssuers(m.AuthorizationServers))
	add("scopesSupported", checkScopes(m.ScopesSupported))
	for _, method := range m.BearerMethodsSupported {
		if method != "header" {
			add("bearerMethodsSupported", fmt.Errorf("%q is not supported: MCP takes tokens only in the Authorization header", method))
		}
	}
	if m.ResourceDocumentation != "" {
		if u, err := url.Parse(m.ResourceDocumentation); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			add("resourceDocumentation", errors.New("must be an absolute http(s) url"))
		}
	}
	return errors.Join(errs...)
}

// JSON validates the document and encodes it, advertising the header bearer method by default.
func (m Metadata) JSON() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if len(m.BearerMethodsSupported) == 0 {
		m.BearerMethodsSupported = []string{"header"}
	}
	return json.Marshal(m)
}

// checkResource requires the canonical form clients compare byte for byte: https (http on
// loopback), lowercase scheme and host, no fragment. A query is refused because it has no place
// in an MCP endpoint URL and would complicate the well-known path.
func checkResource(resource string) error {
	if err := checkEndpoint(resource); err != nil {
		return err
	}
	u, _ := url.Parse(resource)
	if u.RawQuery != "" || u.ForceQuery {
		return errors.New("must not have a query")
	}
	if canonical := canonicalURL(u); canonical != resource {
		return fmt.Errorf("use the canonical form %s", canonical)
	}
	return nil
}

func canonicalURL(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.EscapedPath()
}

func checkIssuers(issuers []string) error {
	if len(issuers) == 0 {
		return errors.New("required: at least one authorization server issuer url")
	}
	for i, iss := range issuers {
		if err := checkEndpoint(iss); err != nil {
			return fmt.Errorf("%s: %w", iss, err)
		}
		if u, _ := url.Parse(iss); u.RawQuery != "" || u.ForceQuery {
			return fmt.Errorf("%s: an issuer must not have a query", iss)
		}
		if slices.Contains(issuers[:i], iss) {
			return fmt.Errorf("%s is listed twice", iss)
		}
	}
	return nil
}

// WellKnownPaths gives the two paths to serve a resource's metadata on: the path-inserted one
// (https://host/mcp → /.well-known/oauth-protected-resource/mcp), which clients try first, and
// the root one. For a resource without a path both are the root path.
func WellKnownPaths(resource string) (pathInserted, root string, err error) {
	if err := checkResource(resource); err != nil {
		return "", "", fmt.Errorf("resource: %w", err)
	}
	u, _ := url.Parse(resource)
	// RFC 9728 §3.1: a terminating slash after the host goes before /.well-known/ is inserted.
	path := strings.TrimPrefix(u.EscapedPath(), "/")
	if path == "" {
		return WellKnownPrefix, WellKnownPrefix, nil
	}
	return WellKnownPrefix + "/" + path, WellKnownPrefix, nil
}

// MetadataURL gives the absolute path-inserted metadata URL, the value for resourceMetadataUrl.
func MetadataURL(resource string) (string, error) {
	pathInserted, _, err := WellKnownPaths(resource)
	if err != nil {
		return "", err
	}
	u, _ := url.Parse(resource)
	return u.Scheme + "://" + u.Host + pathInserted, nil
}

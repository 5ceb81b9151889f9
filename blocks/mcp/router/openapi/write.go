package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The config written, as the router reads it.
type (
	config struct {
		Service    service     `yaml:"service"`
		Env        []envVar    `yaml:"env"`
		Connectors []connector `yaml:"connectors"`
		Flows      []flow      `yaml:"flows"`
	}
	service struct {
		Name string `yaml:"name"`
	}
	envVar struct {
		Name        string `yaml:"name"`
		Default     string `yaml:"default"`
		Description string `yaml:"description,omitempty"`
	}
	connector struct {
		Name     string            `yaml:"name"`
		Type     string            `yaml:"type"`
		Settings map[string]string `yaml:"settings"`
	}
	flow struct {
		Name    string        `yaml:"name"`
		Source  source        `yaml:"source"`
		Process []routerBlock `yaml:"process"`
	}
	source struct {
		Connector string            `yaml:"connector"`
		Settings  map[string]string `yaml:"settings"`
	}
	routerBlock struct {
		Type       string       `yaml:"type"`
		ServerName string       `yaml:"serverName"`
		Tools      []toolConfig `yaml:"tools"`
	}
	toolConfig struct {
		Name         string       `yaml:"name"`
		Description  string       `yaml:"description"`
		Annotations  *annotations `yaml:"annotations,omitempty"`
		InputSchema  string       `yaml:"inputSchema"`
		OutputSchema string       `yaml:"outputSchema,omitempty"`
		Process      []httpBlock  `yaml:"process"`
	}
	httpBlock struct {
		Type     string       `yaml:"type"`
		Settings httpSettings `yaml:"settings"`
	}
	httpSettings struct {
		Method        string            `yaml:"method,omitempty"`
		URL           string            `yaml:"url"`
		Headers       map[string]string `yaml:"headers,omitempty"`
		Query         map[string]string `yaml:"query,omitempty"`
		RequiredQuery []string          `yaml:"requiredQuery,omitempty"`
		Body          string            `yaml:"body,omitempty"`
		Timeout       string            `yaml:"timeout"`
	}
)

// baseURLVar is the variable the tools' URLs start with.
const baseURLVar = "API_BASE_URL"

// credential is how one security scheme's secret reaches the API, from variables.
type credential struct {
	scheme, kind string // kind: bearer, basic, apiKey
	in, name     string // an apiKey's place (header, query, cookie) and name
	vars         []string
}

var notVarChars = regexp.MustCompile(`[^A-Z0-9]+`)

// varName is a scheme's name as a variable's: PETSTORE_AUTH for petstore_auth.
func varName(scheme string) string {
	v := strings.Trim(notVarChars.ReplaceAllString(strings.ToUpper(scheme), "_"), "_")
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		v = "API_" + v
	}
	return v
}

// credentialOf is how scheme name is sent, or nil for a scheme octo cannot fill (mutualTLS).
func credentialOf(name string, s *openapi3.SecurityScheme) *credential {
	v := varName(name)
	c := &credential{scheme: name}
	switch {
	case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
		c.kind, c.vars = "basic", []string{v + "_USERNAME", v + "_PASSWORD"}
	case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
		if !strings.HasSuffix(v, "TOKEN") {
			v += "_TOKEN"
		}
		c.kind, c.vars = "bearer", []string{v}
	case s.Type == "apiKey":
		if !strings.HasSuffix(v, "KEY") {
			v += "_KEY"
		}
		c.kind, c.in, c.name, c.vars = "apiKey", s.In, s.Name, []string{v}
	default:
		return nil
	}
	return c
}

// credentials are those of the operation's first security requirement (its own, else the
// document's), by scheme name.
func credentials(doc *openapi3.T, op *openapi3.Operation) []credential {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 || doc.Components == nil {
		return nil
	}
	var out []credential
	for _, name := range sortedKeys(reqs[0]) {
		ref := doc.Components.SecuritySchemes[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		if c := credentialOf(name, ref.Value); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// apply adds the credential to a request's headers or query; a variable left empty sends none.
func (c credential) apply(s *httpSettings) {
	switch c.kind {
	case "bearer":
		s.Headers["Authorization"] = fmt.Sprintf(`{{ env.%s == "" ? "" : "Bearer " + env.%[1]s }}`, c.vars[0])
	case "basic":
		s.Headers["Authorization"] = fmt.Sprintf(`{{ env.%s == "" ? "" : "Basic " + toBase64(env.%[1]s + ":" + env.%s) }}`, c.vars[0], c.vars[1])
	case "apiKey":
		switch c.in {
		case "query":
			s.Query[c.name] = fmt.Sprintf(`{{ env.%s }}`, c.vars[0])
		case "cookie":
			s.Headers["Cookie"] = fmt.Sprintf(`{{ env.%s == "" ? "" : %q + env.%[1]s }}`, c.vars[0], c.name+"=")
		default:
			s.Headers[c.name] = fmt.Sprintf(`{{ env.%s }}`, c.vars[0])
		}
	}
}

// exprKeywords are words expr-lang reads as operators or literals, never as a member name.
var exprKeywords = []string{"in", "not", "and", "or", "matches", "contains", "startsWith", "endsWith", "let", "nil", "true", "false", "if", "else"}

// argument is the expression of a tool argument: body.name, or body["a-b"] for a name that is
// not an identifier.
func argument(name string) string {
	if identifier.MatchString(name) && !slices.Contains(exprKeywords, name) {
		return "body." + name
	}
	return "body[" + fmt.Sprintf("%q", name) + "]"
}

// request is the http-request settings that make the operation's call from the arguments.
func (t *tool) request() httpSettings {
	s := httpSettings{Headers: map[string]string{}, Query: map[string]string{}, Timeout: "30s"}
	if t.method != "GET" {
		s.Method = t.method
	}
	path := literal(t.path)
	for _, p := range t.params {
		value := "{{ " + argument(p.arg) + " }}"
		if p.isArray() {
			value = fmt.Sprintf(`{{ %s == nil ? "" : join(map(%[1]s, string(#)), ",") }}`, argument(p.arg))
		}
		switch p.in {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", "{{ pathEscape("+argument(p.arg)+") }}")
		case "query":
			s.Query[p.name] = value
			if p.required {
				s.RequiredQuery = append(s.RequiredQuery, p.name)
			}
		case "header":
			s.Headers[p.name] = value
		}
	}
	s.URL = "${" + baseURLVar + "}" + path
	for _, c := range t.security {
		c.apply(&s)
	}
	if t.body != nil {
		if t.body.arg != "" {
			s.Body = argument(t.body.arg)
		} else {
			quoted := make([]string, len(t.body.props))
			for i, p := range t.body.props {
				quoted[i] = fmt.Sprintf("%q", p)
			}
			s.Body = "pick(body, " + strings.Join(quoted, ", ") + ")"
		}
	}
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	if len(s.Query) == 0 {
		s.Query = nil
	}
	return s
}

// baseURL is the API's address: its first server's URL with its variables' defaults, resolved
// against where the description was read from; ok is false when that leaves no absolute URL.
func baseURL(sp *spec) (string, bool) {
	raw := ""
	if len(sp.doc.Servers) > 0 && sp.doc.Servers[0] != nil {
		srv := sp.doc.Servers[0]
		raw = srv.URL
		for name, v := range srv.Variables {
			if v != nil {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	if !u.IsAbs() && sp.from != nil {
		u = sp.from.ResolveReference(u)
		u.RawQuery, u.Fragment = "", ""
	}
	if !u.IsAbs() || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return "", false
	}
	return strings.TrimSuffix(u.String(), "/"), true
}

var notNameRune = regexp.MustCompile(`[^a-z0-9]+`)

// serviceName is the API's title as a name: lower case words joined by dashes.
func serviceName(doc *openapi3.T) string {
	name := ""
	if doc.Info != nil {
		name = strings.Trim(notNameRune.ReplaceAllString(strings.ToLower(doc.Info.Title), "-"), "-")
	}
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	if name == "" {
		name = "api"
	}
	return name
}

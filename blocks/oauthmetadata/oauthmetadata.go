// Package oauthmetadata is the oauth-metadata block: it answers with the OAuth 2.0 Protected
// Resource Metadata document (RFC 9728) that tells MCP clients which authorization server
// issues tokens for a protected server, and which scopes it understands. The document and its
// checks live in blocks/jwtvalidate, beside the 401 challenges that point at it.
//
// It must not know about tokens or routing: a flow binds it to the well-known paths, usually
// /.well-known/oauth-protected-resource/<mcp path> (what clients try first) and the root
// /.well-known/oauth-protected-resource.
package oauthmetadata

import (
	"context"
	"net/http"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "oauth-metadata",
		Summary: "answers with OAuth protected resource metadata (RFC 9728) so MCP clients find the authorization server",
		Doc: "Answers GET and HEAD with the protected resource metadata document, built and " +
			"checked once, that tells MCP clients which authorization server issues tokens for " +
			"this server. Bind it to /.well-known/oauth-protected-resource/<mcp path> and the " +
			"root /.well-known/oauth-protected-resource.",
		Example: "type: oauth-metadata\nsettings:\n  resource: https://mcp.example.net/mcp\n" +
			"  authorizationServers: [https://login.example.net/]\n  scopesSupported: [mcp:tools]\n",
		Transports:      []string{httpmsg.Transport},
		AnswersExchange: true,
		Build:           runtime.BlockFunc(build),
	})
}

// allow is what the document answers besides OPTIONS, which the connector's CORS handles.
const allow = "GET, HEAD"

// Block is a built oauth-metadata block: the document, encoded once.
type Block struct {
	body []byte
}

func build(b *runtime.Build, md *jwtvalidate.Metadata) (runtime.Block, error) {
	body, err := md.JSON()
	if err != nil {
		return nil, jwtvalidate.ReportSettingErrors(b, md, err)
	}
	return &Block{body: body}, nil
}

// Process answers GET and HEAD with the document and refuses other methods with 405. A
// message from a connector that promises no typed view has no method to refuse and gets the
// document (a flow on a non-http connector that promises one is refused at build time).
func (b *Block) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, ok := httpmsg.From(m)
	if !ok {
		m.SetRaw(b.body)
		return m, nil
	}
	switch ex.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		m.ClearBody()
		ex.Status = http.StatusNoContent
		ex.SetReplyHeader("Allow", allow+", OPTIONS")
		m.Finish()
		return m, nil
	default:
		ex.Status = http.StatusMethodNotAllowed
		ex.SetReplyHeader("Allow", allow)
		m.SetBody(map[string]string{"error": "method " + ex.Method + " is not allowed on protected resource metadata; allowed: " + allow})
		m.Finish()
		return m, nil
	}
	ex.Status = http.StatusOK
	ex.SetReplyHeader("Content-Type", "application/json")
	m.SetRaw(b.body)
	return m, nil
}

var _ runtime.Block = (*Block)(nil)

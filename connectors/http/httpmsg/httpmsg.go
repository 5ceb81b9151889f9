// Package httpmsg is the http connector's typed view of a message: the request it came from
// and the reply the connector writes. The connector fills the request side and reads the
// reply side once the flow has run; the blocks that speak HTTP (mcp-router, mcp-mock's HTTP
// transports, jwt-validate, oauth-metadata) read and set them here. It lives beside the
// connector that fills it, as a leaf both sides import; the runtime never imports it, and
// sees only the message's neutral attributes (the request headers).
package httpmsg

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/octo-run/octo/runtime"
)

// Transport is the name the http connector gives its messages' typed view
// (runtime.ConnectorSpec.Transport); a block that needs this view lists it in
// runtime.BlockSpec.Transports.
const Transport = "http"

// Exchange is one HTTP request and the reply to it.
type Exchange struct {
	Method     string
	Path       string
	Host       string
	RemoteAddr string
	// Header holds the request headers; the message's attributes are the same map.
	Header http.Header
	// RawQuery is the URL query as sent, without '?'; Query parses it.
	RawQuery string

	// Status is the status to answer with; 0 means the connector's default, 200.
	Status int
	// ContentType is the reply's media type, when a block says it apart from ReplyHeader: the
	// usual answer then needs no header map of its own. A Content-Type in ReplyHeader wins;
	// with neither, a body is answered as application/json.
	ContentType string
	// ReplyHeader holds the headers to answer with; nil until one is set.
	ReplyHeader http.Header

	query url.Values
}

// Query returns the URL query, parsed on first use: most requests never ask. It is nil, and
// costs nothing, when the URL has none; read it, never write it.
func (e *Exchange) Query() url.Values {
	if e.query == nil && e.RawQuery != "" {
		e.query, _ = url.ParseQuery(e.RawQuery)
	}
	return e.query
}

// SetReplyHeader sets one reply header, creating the map on first use.
func (e *Exchange) SetReplyHeader(key, value string) {
	if e.ReplyHeader == nil {
		e.ReplyHeader = make(http.Header, 2)
	}
	e.ReplyHeader.Set(key, value)
}

// Request is a message and its exchange in one allocation. The http connector embeds it in
// what it keeps of each request, so that a request costs it one allocation.
type Request struct {
	msg runtime.Message
	ex  Exchange
}

// Init makes q's message the one NewMessage would return, and returns it and its exchange.
func (q *Request) Init(body []byte, ex Exchange) (*runtime.Message, *Exchange) {
	q.ex = ex
	q.msg.SetRaw(body)
	q.msg.Attrs = runtime.Attributes(ex.Header)
	q.msg.Transport = &q.ex
	return &q.msg, &q.ex
}

// NewMessage returns a message whose raw body is body and whose typed view is a copy of ex,
// with the request headers as its attributes.
func NewMessage(body []byte, ex Exchange) (*runtime.Message, *Exchange) {
	return new(Request).Init(body, ex)
}

// From returns the message's exchange, and whether it came over HTTP.
func From(m *runtime.Message) (*Exchange, bool) {
	ex, ok := m.Transport.(*Exchange)
	return ex, ok
}

// ErrNotHTTP is what a block that needs an HTTP request answers a message that is not one. A
// flow whose source is not an http connector is refused at build time already, so this
// happens only to a message made by hand (a test, a block running a branch of its own).
var ErrNotHTTP = errors.New("the message did not come from an http connector, and this block needs an HTTP request")

// Need returns the message's exchange, or ErrNotHTTP.
func Need(m *runtime.Message) (*Exchange, error) {
	if ex, ok := From(m); ok {
		return ex, nil
	}
	return nil, ErrNotHTTP
}

// ValidHeaderName reports whether name is an HTTP token (RFC 9110), what a header name must be.
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

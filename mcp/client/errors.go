package client

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// ErrProtocol is wrapped by every error about an answer that breaks the
// protocol: not JSON-RPC, a wrong content type, over a limit, a stream that
// ended before the answer.
var ErrProtocol = errors.New("protocol error")

// ErrClosed is returned by calls on a closed client, or one whose connection
// ended.
var ErrClosed = errors.New("mcp client closed")

// errSessionExpired is an HTTP 404 on a request that carried a session id:
// the server forgot the session, and the client initializes a new one.
var errSessionExpired = errors.New("session expired")

// HTTPError is an HTTP answer with a status the transport cannot use.
type HTTPError struct {
	Method, URL string
	Status      int
	// Body is the start of the answer's body, at most excerptBytes, as text.
	Body string
	// RPC is the JSON-RPC error the body held, if it held one.
	RPC *jsonrpc.Error
}

// Error says the status, and the JSON-RPC error or the body's start.
func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.URL, e.Status)
	switch {
	case e.RPC != nil:
		fmt.Fprintf(&b, ": %s", e.RPC.Error())
	case e.Body != "":
		fmt.Fprintf(&b, ": %q", e.Body)
	}
	return b.String()
}

// Unwrap gives the JSON-RPC error, so errors.As finds an *mcp.Error.
func (e *HTTPError) Unwrap() error {
	if e.RPC == nil {
		return nil
	}
	return e.RPC
}

// excerptBytes is how much of an unusable answer an error quotes.
const excerptBytes = 512

// excerpt returns the start of b as valid UTF-8 text, marked when cut.
func excerpt(b []byte) string {
	cut := len(b) > excerptBytes
	if cut {
		b = b[:excerptBytes]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if cut {
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

func protocolErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

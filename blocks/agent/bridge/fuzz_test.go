package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// Whatever the app sends, the bridge's reader neither panics nor blocks: responses reach the
// call waiting on their id (and a result is read as a tool result or refused), progress goes to
// the call with its token, requests are answered, the rest is dropped.
func FuzzAppLines(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"octo/disconnected"}`,
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":9,"method":"x"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"!!"}]}}`,
		"not json\n\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		near, far := net.Pipe()
		defer near.Close()
		go func() { _, _ = io.Copy(io.Discard, far) }() // the app reads what the bridge answers
		c := &appConn{conn: near, log: slog.New(slog.DiscardHandler), waiting: map[jsonrpc.ID]*pending{},
			byToken: map[string]*pending{}, closed: make(chan struct{})}
		cl := callOf(&mcp.RequestContext{ProgressToken: json.RawMessage(`"t"`), Notifier: &notes{}}, "get_workspace", nil)
		p := &pending{resp: make(chan *jsonrpc.Message, 1), call: &cl}
		if _, err := c.add(p); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			c.handle(line)
		}
		select {
		case m := <-p.resp:
			if m.Error == nil {
				_, _ = decodeResult(m.Result)
			}
		default:
		}
		far.Close()
	})
}

package httpmsg_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

func TestAMessageCarriesItsExchangeAndTheHeadersAsAttributes(t *testing.T) {
	h := http.Header{"X-User": {"ada", "bob"}}
	m, ex := httpmsg.NewMessage([]byte(`{"a":1}`), httpmsg.Exchange{Method: http.MethodPost, Header: h, RawQuery: "q=lisbon&q=porto"})
	if got, ok := httpmsg.From(m); !ok || got != ex {
		t.Fatal("the message does not lead to its exchange")
	}
	if m.Attrs.Get("X-User") != "ada" || len(m.Attrs["X-User"]) != 2 {
		t.Fatalf("attributes %v, want the request headers", m.Attrs)
	}
	if q := ex.Query(); q.Get("q") != "lisbon" || len(q["q"]) != 2 {
		t.Fatalf("query %v", q)
	}
	if d := m.Derive("x"); d.Transport != m.Transport || d.Attrs.Get("X-User") != "ada" {
		t.Fatal("a branch's message lost the exchange or the attributes")
	}
	ex.SetReplyHeader("Allow", "GET")
	if ex.ReplyHeader.Get("Allow") != "GET" {
		t.Fatalf("reply header %v", ex.ReplyHeader)
	}
}

func TestABlockThatNeedsHTTPSaysSoOfAnyOtherMessage(t *testing.T) {
	if _, err := httpmsg.Need(runtime.NewMessage(nil)); !errors.Is(err, httpmsg.ErrNotHTTP) {
		t.Fatalf("got %v, want ErrNotHTTP", err)
	}
	if e := runtime.ErrorOf(httpmsg.ErrNotHTTP); e.Kind != runtime.KindInternal || e.Msg != "internal error" {
		t.Fatalf("answered %s %q; a misrouted message is the server's fault, without details", e.Kind, e.Msg)
	}
}

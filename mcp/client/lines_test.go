package client

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

func TestLineReaderSkipsOnlyTheLineOverItsLimit(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"the long line ends in the reader's buffer", "short\n" + strings.Repeat("x", 20) + "\nnext\r\nlast"},
		{"the long line spans the reader's buffer", "short\n" + strings.Repeat("x", 70<<10) + "\nnext\r\nlast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tc.in), 10)
			var got []string
			for {
				line, err := lr.line()
				if errors.Is(err, io.EOF) {
					break
				}
				if errors.Is(err, errLineTooLong) {
					got = append(got, "<too long>")
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != "short|<too long>|next|last" {
				t.Fatalf("lines: %q", got)
			}
		})
	}
}

func TestEventReaderJoinsDataAndSkipsEmptyEvents(t *testing.T) {
	in := ": comment\nretry: 10\ndata:\n\nevent: message\ndata: {\"a\":\ndata: 1}\nid: 7\n\nevent: endpoint\ndata:/m?x=1"
	er := newEventReader(strings.NewReader(in), 100)
	var got []string
	for {
		ev, err := er.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.name+"="+string(ev.data))
	}
	if strings.Join(got, "|") != "message={\"a\":\n1}|endpoint=/m?x=1" {
		t.Fatalf("events: %q", got)
	}
}

// FuzzEventReader feeds the stream parser what a hostile server could send: it must end, never
// panic, and never hand out an event over its limit.
func FuzzEventReader(f *testing.F) {
	for _, seed := range []string{
		"data: {}\n\n", "event: endpoint\ndata: /m\n\n", "data:\r\ndata: a\r\n\r\n", ": c\nretry: 1\n\n",
		"data: " + strings.Repeat("x", 100) + "\n\n", "data", "\n\n\n", "event:\ndata:x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		er := newEventReader(strings.NewReader(in), 64)
		for i := 0; i <= len(in); i++ {
			ev, err := er.next()
			if err != nil {
				return
			}
			if len(ev.data) == 0 || len(ev.data) > 64 {
				t.Fatalf("event of %d bytes", len(ev.data))
			}
		}
		t.Fatal("more events than input bytes")
	})
}

// A call's _meta keeps what the caller put there (trace context) beside the progress token.
func TestProgressJoinsTheMetaACallCarries(t *testing.T) {
	raw, err := encodeParams(callParams{Name: "t", Meta: map[string]string{"traceparent": "00-a-b-01"}}, jsonrpc.IntID(7), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); got != `{"_meta":{"progressToken":7,"traceparent":"00-a-b-01"},"name":"t"}` {
		t.Fatalf("params: %s", got)
	}
}

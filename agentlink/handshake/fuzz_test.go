package handshake

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
)

// The app parses a line from anyone who can connect: whatever it is, parseHello returns a nonce
// of 32 bytes or an ErrProtocol error, and never panics.
func FuzzParseHello(f *testing.F) {
	f.Add([]byte(helloLine(kaNc)))
	f.Add([]byte(`{"octo":"agent/1","nonce":"` + kaNc + `=" }`))
	f.Add([]byte(`{"octo":"agent/2","nonce":1}`))
	f.Add([]byte("GET / HTTP/1.1\r"))
	f.Add([]byte(`{"octo":"agent/1","octo":"agent/1","nonce":"\u0041"}`))
	f.Add([]byte(` {}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		nc, err := parseHello(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) || nc != "" {
				t.Fatalf("parseHello(%q) = %q, %v", line, nc, err)
			}
			return
		}
		if !checkNonce(nc) {
			t.Fatalf("parseHello(%q) accepted nonce %q", line, nc)
		}
	})
}

// readLine returns a line of at most MaxLine bytes without a newline, or an error, for any
// input split in any way.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte(helloLine(kaNc)+"\n"), uint16(7))
	f.Add(bytes.Repeat([]byte("x"), MaxLine+1), uint16(1000))
	f.Add([]byte("\n\n"), uint16(1))
	f.Fuzz(func(t *testing.T, input []byte, chunk uint16) {
		line, rest, err := readLine(&chunked{data: input, n: int(chunk%512) + 1}, new(lineBuffer))
		if err != nil {
			return
		}
		if len(line) > MaxLine || bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("line %q", line)
		}
		if !bytes.HasPrefix(input, append(append([]byte(nil), line...), '\n')) || !bytes.HasPrefix(input[len(line)+1:], rest) {
			t.Fatalf("line %q and rest %q are not what %q starts with", line, rest, input)
		}
	})
}

// chunked reads its data n bytes at a time, as a network connection may deliver it.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// Whatever a peer that does not know the token sends, Accept refuses it, within its deadline,
// without panicking. The peer's bytes are written as they come, then its side closes.
func FuzzAccept(f *testing.F) {
	f.Add([]byte(helloLine(kaNc) + "\n" + proofLine(kaBridge) + "\n"))
	f.Add([]byte(helloLine(kaNc) + "\n"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte(`{"octo":"agent/1","nonce":"` + kaNc + `"}` + "\r\n" + `{"proof":""}` + "\r\n"))
	info := appdata.Info{Port: kaPort, Token: kaToken, PID: 1, Instance: kaInstance}
	f.Fuzz(func(t *testing.T, input []byte) {
		app, peer := net.Pipe()
		go func() {
			go io.Copy(io.Discard, peer) // the app's answers
			peer.Write(input)
			peer.Close()
		}()
		err := accept(app, info, AcceptOptions{Within: time.Second})
		app.Close()
		if err == nil {
			t.Fatalf("Accept passed a peer that sent %q", input)
		}
	})
}

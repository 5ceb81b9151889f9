package handshake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// The handshake's lines, in order.
type (
	hello struct { // 1. bridge → app
		Octo  string `json:"octo"`
		Nonce string `json:"nonce"`
	}
	challenge struct { // 2. app → bridge
		Nonce    string `json:"nonce,omitempty"`
		Instance string `json:"instance,omitempty"`
		Proof    string `json:"proof,omitempty"`
		Error    string `json:"error,omitempty"`
	}
	answer struct { // 3. bridge → app
		Proof string `json:"proof"`
	}
	verdict struct { // 4. app → bridge
		OK    bool   `json:"ok,omitempty"`
		Error string `json:"error,omitempty"`
	}
)

// lineBuffer is the buffer a side reads its lines into: one line and its newline.
type lineBuffer [MaxLine + 1]byte

// readLine reads one line from r into buf and returns it without its newline, and the bytes
// that came after it in the same reads. A line longer than MaxLine is an error, so is input
// that ends before a newline.
func readLine(r io.Reader, buf *lineBuffer) (line, rest []byte, err error) {
	n := 0
	for {
		m, err := r.Read(buf[n:])
		if i := bytes.IndexByte(buf[n:n+m], '\n'); i >= 0 {
			return buf[:n+i], buf[n+i+1 : n+m], nil
		}
		n += m
		if n == len(buf) {
			return nil, nil, fmt.Errorf("%w: a line longer than %d bytes", ErrProtocol, MaxLine)
		}
		if err == io.EOF {
			return nil, nil, fmt.Errorf("%w: the connection closed mid-handshake", ErrProtocol)
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// readOnly reads a line after which the peer must send nothing until answered.
func readOnly(r io.Reader, buf *lineBuffer) ([]byte, error) {
	line, rest, err := readLine(r, buf)
	if err == nil && len(rest) > 0 {
		err = errSentAhead
	}
	return line, err
}

// errSentAhead: a side must wait for the answer to its line before it sends more.
var errSentAhead = fmt.Errorf("%w: more was sent before the line was answered", ErrProtocol)

// decodeLine decodes a line holding one JSON object into v.
func decodeLine(line []byte, v any) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return fmt.Errorf("%w: the line is not a JSON object", ErrProtocol)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("%w: the line is not a JSON object: %v", ErrProtocol, err)
	}
	return nil
}

// parseHello reads the bridge's first line and returns its nonce.
func parseHello(line []byte) (string, error) {
	var h hello
	if err := decodeLine(line, &h); err != nil {
		return "", err
	}
	if h.Octo == "" {
		return "", fmt.Errorf(`%w: the first line must be {"octo":%q,"nonce":…}`, ErrProtocol, Version)
	}
	if h.Octo != Version {
		return "", fmt.Errorf("%w: the bridge speaks %q; this app speaks %q", ErrProtocol, h.Octo, Version)
	}
	if !checkNonce(h.Nonce) {
		return "", fmt.Errorf("%w: the nonce is not %d bytes in base64url", ErrProtocol, NonceBytes)
	}
	return h.Nonce, nil
}

// writeLine writes v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

package handshake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
)

// Dial connects to the app that info (agent.json) describes on 127.0.0.1 and runs the bridge's
// side of the handshake, within Timeout or ctx, whichever ends first. It returns the connection
// ready for MCP lines; anything the app sent after its "ok" is read first from it. A connection
// that cannot be made is the dialer's error (wrapped), so a caller can tell "no app listening"
// (errors.Is(err, syscall.ECONNREFUSED)) from an app that failed the handshake (ErrAuth,
// ErrProtocol).
func Dial(ctx context.Context, info appdata.Info) (net.Conn, error) {
	key, err := info.Key()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(info.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to octo at %s: %w", addr, err)
	}
	_ = conn.SetDeadline(time.Now().Add(Timeout))
	// ctx ending (cancelled, or its deadline) ends a read or write in progress at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	rest, err := greet(conn, key, info)
	if !stop() || err != nil {
		conn.Close()
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return nil, fmt.Errorf("octo at %s: %w", addr, err)
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		conn.Close()
		return nil, err
	}
	if len(rest) > 0 {
		return &prefixedConn{Conn: conn, prefix: rest}, nil
	}
	return conn, nil
}

// greet runs the bridge's side of the exchange on conn and returns what the app sent after its
// last line.
func greet(conn net.Conn, key []byte, info appdata.Info) ([]byte, error) {
	nc, err := newNonce()
	if err != nil {
		return nil, err
	}
	if err := writeLine(conn, hello{Octo: Version, Nonce: nc}); err != nil {
		return nil, err
	}
	buf := new(lineBuffer)
	line, err := readOnly(conn, buf)
	var c challenge
	if err == nil {
		err = decodeLine(line, &c)
	}
	if err != nil {
		return nil, err
	}
	if err := checkChallenge(c, key, info, nc); err != nil {
		return nil, err
	}
	pb := proofOf(key, roleBridge, info.Port, info.Instance, nc, c.Nonce)
	if err := writeLine(conn, answer{Proof: pb}); err != nil {
		return nil, err
	}
	line, rest, err := readLine(conn, buf)
	var v verdict
	if err == nil {
		err = decodeLine(line, &v)
	}
	switch {
	case err != nil:
		return nil, err
	case strings.HasPrefix(v.Error, busyPrefix):
		return nil, &BusyError{Reason: strings.TrimPrefix(v.Error, busyPrefix)}
	case v.Error != "" || !v.OK:
		return nil, fmt.Errorf("%w: the app refused the bridge's proof", ErrAuth)
	}
	return append([]byte(nil), rest...), nil
}

// checkChallenge checks the app's line: it must be the app agent.json names, with a nonce of
// its own, and prove it knows the token.
func checkChallenge(c challenge, key []byte, info appdata.Info, nc string) error {
	switch {
	case strings.HasPrefix(c.Error, busyPrefix):
		return &BusyError{Reason: strings.TrimPrefix(c.Error, busyPrefix)}
	case c.Error != "":
		return fmt.Errorf("%w: the app said: %s", ErrProtocol, c.Error)
	case !checkNonce(c.Nonce):
		return fmt.Errorf("%w: the app's nonce is not %d bytes in base64url", ErrProtocol, NonceBytes)
	case c.Nonce == nc:
		return fmt.Errorf("%w: the app sent the bridge's own nonce back", ErrAuth)
	case c.Instance != info.Instance:
		return fmt.Errorf("%w: the app is instance %q, not %q as agent.json says: agent.json is stale", ErrAuth, c.Instance, info.Instance)
	case !verify(c.Proof, key, roleApp, info.Port, info.Instance, nc, c.Nonce):
		return fmt.Errorf("%w: the app's proof is wrong", ErrAuth)
	}
	return nil
}

// prefixedConn is a connection whose first bytes were read during the handshake. It keeps
// CloseWrite, which a bridge may use to say it has no more to send.
type prefixedConn struct {
	net.Conn
	prefix []byte
}

// Read returns the bytes read ahead first.
func (c *prefixedConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// CloseWrite shuts the sending side down, when the connection has one to shut.
func (c *prefixedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

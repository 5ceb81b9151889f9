package handshake

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
)

// Accept runs the app's side of the handshake on conn, a connection a bridge opened to the app
// that info describes, within the options' time (Timeout when 0). nil means the bridge proved it
// knows the token and conn now carries MCP lines: Accept has read nothing past the bridge's
// proof. On an error (ErrAuth, ErrProtocol, ErrBusy, or the connection's own) the bridge has
// been told what it may know and the caller closes conn.
func Accept(conn net.Conn, info appdata.Info, opts AcceptOptions) error {
	if opts.Within <= 0 {
		opts.Within = Timeout
	}
	return accept(conn, info, opts)
}

// AcceptOptions tune Accept.
type AcceptOptions struct {
	// Within bounds the whole exchange; 0 means Timeout.
	Within time.Duration
	// Admit, when set, is asked once the bridge's proof checks out, before it is told so: an
	// error (the app holds as many sessions as it takes) refuses the bridge as busy, with the
	// error's text.
	Admit func() error
}

func accept(conn net.Conn, info appdata.Info, opts AcceptOptions) error {
	key, err := info.Key()
	if err != nil {
		return err
	}
	if err := conn.SetDeadline(time.Now().Add(opts.Within)); err != nil {
		return err
	}
	buf := new(lineBuffer)
	nc, err := acceptHello(conn, buf)
	if err != nil {
		return err
	}
	ns, err := newNonce()
	if err != nil {
		return err
	}
	pa := proofOf(key, roleApp, info.Port, info.Instance, nc, ns)
	if err := writeLine(conn, challenge{Nonce: ns, Instance: info.Instance, Proof: pa}); err != nil {
		return err
	}
	line, err := readOnly(conn, buf)
	var a answer
	if err == nil {
		err = decodeLine(line, &a)
	}
	if err != nil {
		return refuse(conn, err)
	}
	if !verify(a.Proof, key, roleBridge, info.Port, info.Instance, nc, ns) {
		return refuse(conn, fmt.Errorf("%w: the bridge's proof is wrong", ErrAuth))
	}
	if opts.Admit != nil {
		if err := opts.Admit(); err != nil {
			_ = writeLine(conn, verdict{Error: busyPrefix + err.Error()})
			return fmt.Errorf("%w: %v", ErrBusy, err)
		}
	}
	if err := writeLine(conn, verdict{OK: true}); err != nil {
		return err
	}
	return conn.SetDeadline(time.Time{})
}

// RefuseBusy tells a bridge, before reading anything of its handshake, that the app takes no
// more connections now, with why; the caller closes conn. The bridge reads it as the app's
// first line and fails with ErrBusy.
func RefuseBusy(conn net.Conn, why string) {
	_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_ = writeLine(conn, challenge{Error: busyPrefix + why})
}

// acceptHello reads the bridge's first line and returns its nonce. The line is judged before
// what came after it, so a client that is no bridge (an MCP client sending requests, a browser)
// is told what is wrong with its first line.
func acceptHello(conn net.Conn, buf *lineBuffer) (string, error) {
	line, rest, err := readLine(conn, buf)
	if err != nil {
		return "", refuse(conn, err)
	}
	nc, err := parseHello(line)
	if err == nil && len(rest) > 0 {
		err = errSentAhead
	}
	if err != nil {
		return "", refuse(conn, err)
	}
	return nc, nil
}

// refuse tells the bridge why the handshake failed, when it is a failure of the bridge's lines
// (a broken connection is told nothing), and returns err. A wrong proof is told only
// "authentication failed".
func refuse(conn net.Conn, err error) error {
	var msg string
	switch {
	case errors.Is(err, ErrAuth):
		msg = ErrAuth.Error()
	case errors.Is(err, ErrProtocol):
		msg = err.Error()
	default:
		return err
	}
	_ = writeLine(conn, verdict{Error: msg})
	return err
}

package handshake

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
)

// app is a real app side: a loopback listener whose connections go through Accept.
type app struct {
	ln   net.Listener
	info appdata.Info
	errs chan error // what Accept returned, one per connection
}

// startApp listens on a free loopback port and runs Accept on each connection with within as
// the deadline; a connection that passes gets its first line echoed back, so a test can see it
// carries lines and that Accept read nothing past the proof.
func startApp(t testing.TB, within time.Duration) *app {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	info, err := appdata.NewInfo(ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{ln: ln, info: info, errs: make(chan error, 16)}
	go a.serve(within)
	t.Cleanup(func() { ln.Close() })
	return a
}

func (a *app) serve(within time.Duration) {
	for {
		conn, err := a.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			err := accept(conn, a.info, AcceptOptions{Within: within})
			a.errs <- err
			if err == nil {
				line, _ := bufio.NewReader(conn).ReadBytes('\n')
				conn.Write(line)
			}
		}()
	}
}

// result waits for what Accept returned on the next connection.
func (a *app) result(t *testing.T) error {
	t.Helper()
	select {
	case err := <-a.errs:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Accept did not return")
		return nil
	}
}

func TestTheBridgeAndTheAppShakeHandsAndThenCarryLines(t *testing.T) {
	a := startApp(t, Timeout)
	conn, err := Dial(context.Background(), a.info)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer conn.Close()
	if err := a.result(t); err != nil {
		t.Fatalf("Accept: %v", err)
	}
	const msg = `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n"
	if _, err := io.WriteString(conn, msg); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || got != msg {
		t.Fatalf("after the handshake the app echoed %q, %v; want %q", got, err, msg)
	}
}

// rawBridge speaks the handshake line by line, to do what a real bridge would not.
type rawBridge struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, port int) *rawBridge {
	t.Helper()
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawBridge{conn: conn, r: bufio.NewReader(conn)}
}

func (b *rawBridge) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(b.conn, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// recv reads the app's next line into a challenge (which also holds an error or ok's absence).
func (b *rawBridge) recv(t *testing.T) (challenge, map[string]any) {
	t.Helper()
	line, err := b.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the app's line: %v (read %q)", err, line)
	}
	var c challenge
	var all map[string]any
	if json.Unmarshal(line, &c) != nil || json.Unmarshal(line, &all) != nil {
		t.Fatalf("the app's line is not a JSON object: %q", line)
	}
	return c, all
}

func helloLine(nc string) string { return `{"octo":"agent/1","nonce":"` + nc + `"}` }
func proofLine(p string) string  { return `{"proof":"` + p + `"}` }

func nonce(t *testing.T) string {
	n, err := newNonce()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The app's proof on the wire is the documented HMAC over what was sent, checked with the test's
// own computation.
func TestTheAppsProofOnTheWireIsTheDocumentedHMAC(t *testing.T) {
	a := startApp(t, Timeout)
	key, _ := a.info.Key()
	b := dialRaw(t, a.info.Port)
	b.send(t, helloLine(kaNc))
	c, all := b.recv(t)
	if len(all) != 3 || c.Instance != a.info.Instance || !checkNonce(c.Nonce) {
		t.Fatalf("challenge %v: want exactly nonce, instance, proof", all)
	}
	want := independentProof(key, "app", a.info.Port, a.info.Instance, kaNc, c.Nonce)
	if c.Proof != want {
		t.Fatalf("the app's proof is %s, want %s", c.Proof, want)
	}
	b.send(t, proofLine(independentProof(key, "bridge", a.info.Port, a.info.Instance, kaNc, c.Nonce)))
	if _, all := b.recv(t); len(all) != 1 || all["ok"] != true {
		t.Fatalf("verdict %v, want {\"ok\":true}", all)
	}
	if err := a.result(t); err != nil {
		t.Fatalf("Accept: %v", err)
	}
}

func TestTheAppRefusesBridgesThatDoNotProveTheToken(t *testing.T) {
	a := startApp(t, Timeout)
	key, _ := a.info.Key()
	wrongKey := append([]byte(nil), key...)
	wrongKey[0] ^= 0xff
	bridgeProof := func(k []byte, nc, ns string) string {
		return independentProof(k, "bridge", a.info.Port, a.info.Instance, nc, ns)
	}
	for _, tc := range []struct {
		name  string
		proof func(nc string, c challenge) string
	}{
		{"a proof under another token", func(nc string, c challenge) string { return bridgeProof(wrongKey, nc, c.Nonce) }},
		{"a tampered proof", func(nc string, c challenge) string { return flip(bridgeProof(key, nc, c.Nonce)) }},
		{"the app's own proof reflected back", func(_ string, c challenge) string { return c.Proof }},
		{"a proof for another port", func(nc string, c challenge) string {
			return independentProof(key, "bridge", a.info.Port+1, a.info.Instance, nc, c.Nonce)
		}},
		{"a proof for another instance", func(nc string, c challenge) string {
			return independentProof(key, "bridge", a.info.Port, strings.Repeat("0", 32), nc, c.Nonce)
		}},
		{"a proof that is not base64url", func(string, challenge) string { return "!!!" }},
		{"no proof", func(string, challenge) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dialRaw(t, a.info.Port)
			nc := nonce(t)
			b.send(t, helloLine(nc))
			c, _ := b.recv(t)
			b.send(t, proofLine(tc.proof(nc, c)))
			if _, all := b.recv(t); len(all) != 1 || all["error"] != "authentication failed" {
				t.Fatalf("verdict %v, want exactly {\"error\":\"authentication failed\"}", all)
			}
			if err := a.result(t); !errors.Is(err, ErrAuth) {
				t.Fatalf("Accept: %v, want ErrAuth", err)
			}
			assertClosed(t, b)
		})
	}
}

// A proof recorded from a handshake that passed is worthless on the next connection, even
// with the same bridge nonce: the app's nonce is new.
func TestTheAppRefusesAProofReplayedFromAnEarlierHandshake(t *testing.T) {
	a := startApp(t, Timeout)
	key, _ := a.info.Key()
	nc := nonce(t)
	first := dialRaw(t, a.info.Port)
	first.send(t, helloLine(nc))
	c, _ := first.recv(t)
	recorded := independentProof(key, "bridge", a.info.Port, a.info.Instance, nc, c.Nonce)
	first.send(t, proofLine(recorded))
	if _, all := first.recv(t); all["ok"] != true {
		t.Fatalf("the first handshake failed: %v", all)
	}
	if err := a.result(t); err != nil {
		t.Fatal(err)
	}

	again := dialRaw(t, a.info.Port)
	again.send(t, helloLine(nc))
	c2, _ := again.recv(t)
	if c2.Nonce == c.Nonce {
		t.Fatal("the app chose the same nonce twice")
	}
	again.send(t, proofLine(recorded))
	if _, all := again.recv(t); all["error"] != "authentication failed" {
		t.Fatalf("verdict %v, want authentication failed", all)
	}
	if err := a.result(t); !errors.Is(err, ErrAuth) {
		t.Fatalf("Accept: %v, want ErrAuth", err)
	}
}

// Malformed first lines are answered with what is wrong, then closed.
func TestTheAppRefusesMalformedFirstLines(t *testing.T) {
	a := startApp(t, Timeout)
	nc := nonce(t)
	for _, tc := range []struct{ name, line, says string }{
		{"a line over 4 KiB", `{"octo":"agent/1","nonce":"` + nc + `"` + strings.Repeat(" ", MaxLine) + "}", "longer than 4096 bytes"},
		{"an HTTP request", "GET / HTTP/1.1\r", "not a JSON object"},
		{"JSON that is not an object", `["octo","agent/1"]`, "not a JSON object"},
		{"an object cut short", `{"octo":"agent/1","nonce":`, "not a JSON object"},
		{"two objects", helloLine(nc) + helloLine(nc), "not a JSON object"},
		{"an MCP request", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `the first line must be {"octo":"agent/1"`},
		{"another version", `{"octo":"agent/2","nonce":"` + nc + `"}`, `the bridge speaks "agent/2"; this app speaks "agent/1"`},
		{"no nonce", `{"octo":"agent/1"}`, "nonce is not 32 bytes"},
		{"a short nonce", `{"octo":"agent/1","nonce":"` + nc[:40] + `"}`, "nonce is not 32 bytes"},
		{"a padded nonce", `{"octo":"agent/1","nonce":"` + nc + `="}`, "nonce is not 32 bytes"},
		{"a nonce that is a number", `{"octo":"agent/1","nonce":7}`, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dialRaw(t, a.info.Port)
			b.send(t, tc.line)
			_, all := b.recv(t)
			if msg, _ := all["error"].(string); len(all) != 1 || !strings.Contains(msg, tc.says) {
				t.Fatalf("the app said %v, want an error saying %q", all, tc.says)
			}
			if err := a.result(t); !errors.Is(err, ErrProtocol) {
				t.Fatalf("Accept: %v, want ErrProtocol", err)
			}
			assertClosed(t, b)
		})
	}
}

// A first line of exactly MaxLine bytes is read.
func TestAFirstLineOfExactlyTheLimitIsRead(t *testing.T) {
	a := startApp(t, Timeout)
	nc := nonce(t)
	head := `{"octo":"agent/1","nonce":"` + nc + `"`
	b := dialRaw(t, a.info.Port)
	b.send(t, head+strings.Repeat(" ", MaxLine-len(head)-1)+"}")
	if c, all := b.recv(t); c.Proof == "" {
		t.Fatalf("the app refused a line of %d bytes: %v", MaxLine, all)
	}
}

func TestTheAppEndsHandshakesThatDoNotFinish(t *testing.T) {
	a := startApp(t, 200*time.Millisecond)
	t.Run("a client that sends nothing", func(t *testing.T) {
		dialRaw(t, a.info.Port)
		var ne net.Error
		if err := a.result(t); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("Accept: %v, want a timeout", err)
		}
	})
	t.Run("a client that never ends its line", func(t *testing.T) {
		b := dialRaw(t, a.info.Port)
		io.WriteString(b.conn, `{"octo":"agent/1",`)
		var ne net.Error
		if err := a.result(t); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("Accept: %v, want a timeout", err)
		}
	})
	t.Run("a client that stops after its first line", func(t *testing.T) {
		b := dialRaw(t, a.info.Port)
		b.send(t, helloLine(nonce(t)))
		b.recv(t)
		var ne net.Error
		if err := a.result(t); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("Accept: %v, want a timeout", err)
		}
	})
}

func TestTheAppFailsWhenTheBridgeClosesMidHandshake(t *testing.T) {
	a := startApp(t, Timeout)
	for _, tc := range []struct {
		name string
		run  func(*rawBridge)
	}{
		{"before its first line", func(b *rawBridge) {}},
		{"within its first line", func(b *rawBridge) { io.WriteString(b.conn, `{"octo":`) }},
		{"before its proof", func(b *rawBridge) { b.send(t, helloLine(nonce(t))); b.recv(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dialRaw(t, a.info.Port)
			tc.run(b)
			b.conn.Close()
			if err := a.result(t); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "closed mid-handshake") {
				t.Fatalf("Accept: %v, want closed mid-handshake", err)
			}
		})
	}
}

// A bridge waits for each answer: bytes sent ahead would be lost to the MCP session.
func TestTheAppRefusesABridgeThatSendsAhead(t *testing.T) {
	a := startApp(t, Timeout)
	b := dialRaw(t, a.info.Port)
	io.WriteString(b.conn, helloLine(nonce(t))+"\n"+`{"proof":"x"}`+"\n")
	// Both lines are usually read at once (sent ahead); when not, the proof is simply wrong.
	_, all := b.recv(t)
	if _, ok := all["error"]; !ok {
		if _, all = b.recv(t); all["error"] == nil {
			t.Fatalf("the app answered %v, want an error", all)
		}
	}
	if err := a.result(t); err == nil {
		t.Fatal("Accept passed a bridge that sent ahead")
	}
}

func assertClosed(t *testing.T, b *rawBridge) {
	t.Helper()
	// A reset is a close too: the app closes with the rest of an over-long line unread.
	if line, err := b.r.ReadBytes('\n'); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("after refusing, the app sent %q, %v; want the connection closed", line, err)
	}
}

func flip(s string) string {
	c := byte('A')
	if s[0] == 'A' {
		c = 'B'
	}
	return string(c) + s[1:]
}

// An app that takes no more connections says so, before the handshake or after the proof, and
// the bridge tells that apart from a failed one: ErrBusy, with the app's reason.
func TestABusyAppSaysSoAndTheBridgeKnowsIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	info, err := appdata.NewInfo(ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan error, 2)
	go func() {
		conn, err := ln.Accept() // the first: refused at once
		if err != nil {
			return
		}
		RefuseBusy(conn, "64 handshakes in progress")
		conn.Close()
		conn, err = ln.Accept() // the second: refused once it proved itself
		if err != nil {
			return
		}
		accepted <- accept(conn, info, AcceptOptions{Within: time.Second, Admit: func() error { return errors.New("64 sessions open") }})
		conn.Close()
	}()
	for _, want := range []string{"64 handshakes in progress", "64 sessions open"} {
		_, err := Dial(context.Background(), info)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), want) || errors.Is(err, ErrAuth) {
			t.Fatalf("Dial = %v, want ErrBusy saying %q", err, want)
		}
	}
	if err := <-accepted; !errors.Is(err, ErrBusy) {
		t.Fatalf("Accept = %v", err)
	}
}

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

// fakeApp listens on loopback and answers each connection with script, which reads and writes
// lines as an app would or would not.
func fakeApp(t *testing.T, script func(c *rawPeer)) (port int, seen chan []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	seen = make(chan []string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				p := &rawPeer{conn: conn, r: bufio.NewReader(conn)}
				script(p)
				// Everything else the bridge sent, until it closes.
				conn.SetReadDeadline(time.Now().Add(5 * time.Second))
				for {
					line, err := p.r.ReadString('\n')
					if err != nil {
						break
					}
					p.lines = append(p.lines, line)
				}
				seen <- p.lines
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, seen
}

// rawPeer is the test's end of a connection: it records every line it read.
type rawPeer struct {
	conn  net.Conn
	r     *bufio.Reader
	lines []string
}

func (p *rawPeer) hello() hello {
	line, _ := p.r.ReadString('\n')
	p.lines = append(p.lines, line)
	var h hello
	json.Unmarshal([]byte(line), &h)
	return h
}

func (p *rawPeer) send(line string) { io.WriteString(p.conn, line+"\n") }

func testInfo(t *testing.T, port int) appdata.Info {
	t.Helper()
	info, err := appdata.NewInfo(port)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func dialQuickly(info appdata.Info) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return Dial(ctx, info)
}

// noProofSent checks the bridge sent the app nothing but its first line: it never proves
// itself to an app that did not prove itself first.
func noProofSent(t *testing.T, seen chan []string) {
	t.Helper()
	select {
	case lines := <-seen:
		if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"octo":"agent/1","nonce":"`) {
			t.Fatalf("the bridge sent %q; want its first line only", lines)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not close the connection")
	}
}

func TestTheBridgeRefusesAppsThatDoNotProveTheToken(t *testing.T) {
	var info appdata.Info // set below: the fake app needs its port first
	var recorded challenge
	for _, tc := range []struct {
		name   string
		answer func(h hello) string
		want   error
	}{
		{"an app under another token", func(h hello) string {
			other := testInfo(t, info.Port)
			key, _ := other.Key()
			ns := nonce(t)
			return challengeLine(ns, info.Instance, independentProof(key, "app", info.Port, info.Instance, h.Nonce, ns))
		}, ErrAuth},
		{"a tampered proof", func(h hello) string {
			ns := nonce(t)
			return challengeLine(ns, info.Instance, flip(appProof(info, h.Nonce, ns)))
		}, ErrAuth},
		{"the bridge's own nonce sent back", func(h hello) string {
			return challengeLine(h.Nonce, info.Instance, appProof(info, h.Nonce, h.Nonce))
		}, ErrAuth},
		{"the bridge's proof as the app's", func(h hello) string {
			ns := nonce(t)
			key, _ := info.Key()
			return challengeLine(ns, info.Instance, independentProof(key, "bridge", info.Port, info.Instance, h.Nonce, ns))
		}, ErrAuth},
		{"another instance", func(h hello) string {
			other := strings.Repeat("ab", 16)
			ns := nonce(t)
			key, _ := info.Key()
			return challengeLine(ns, other, independentProof(key, "app", info.Port, other, h.Nonce, ns))
		}, ErrAuth},
		{"a proof replayed from an earlier handshake", func(hello) string {
			return challengeLine(recorded.Nonce, info.Instance, recorded.Proof)
		}, ErrAuth},
		{"an error", func(hello) string { return `{"error":"not today"}` }, ErrProtocol},
		{"a short nonce", func(h hello) string {
			ns := nonce(t)[:40]
			return challengeLine(ns, info.Instance, appProof(info, h.Nonce, ns))
		}, ErrProtocol},
		{"a line over 4 KiB", func(hello) string { return `{"nonce":"` + strings.Repeat("A", MaxLine) + `"}` }, ErrProtocol},
		{"not JSON", func(hello) string { return "HTTP/1.1 400 Bad Request\r" }, ErrProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port, seen := fakeApp(t, func(p *rawPeer) { p.send(tc.answer(p.hello())) })
			info = testInfo(t, port)
			recorded = recordChallenge(t, info)
			conn, err := dialQuickly(info)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Dial: %v, %v; want %v", conn, err, tc.want)
			}
			noProofSent(t, seen)
		})
	}
}

// recordChallenge returns a challenge that was good for an earlier handshake (other nonces).
func recordChallenge(t *testing.T, info appdata.Info) challenge {
	nc := nonce(t)
	ns := nonce(t)
	return challenge{Nonce: ns, Instance: info.Instance, Proof: appProof(info, nc, ns)}
}

func appProof(info appdata.Info, nc, ns string) string {
	key, _ := info.Key()
	return independentProof(key, "app", info.Port, info.Instance, nc, ns)
}

func challengeLine(ns, instance, proof string) string {
	b, _ := json.Marshal(challenge{Nonce: ns, Instance: instance, Proof: proof})
	return string(b)
}

// A relay on another port reaches the real app, but the proofs are bound to the port the
// bridge dialed: neither side passes.
func TestARelayOnAnotherPortFailsTheHandshake(t *testing.T) {
	a := startApp(t, Timeout)
	relay, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	go func() {
		in, err := relay.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", a.ln.Addr().String())
		if err != nil {
			in.Close()
			return
		}
		go func() { io.Copy(out, in); out.Close() }()
		io.Copy(in, out)
		in.Close()
	}()
	info := a.info
	info.Port = relay.Addr().(*net.TCPAddr).Port
	if _, err := dialQuickly(info); !errors.Is(err, ErrAuth) {
		t.Fatalf("Dial through the relay: %v, want ErrAuth", err)
	}
	if err := a.result(t); err == nil {
		t.Fatal("the app accepted the bridge through the relay")
	}
}

// A bridge whose agent.json has the wrong token never proves anything, and the app is never
// satisfied: the app sees the connection closed before any proof.
func TestABridgeWithTheWrongTokenNeverProvesItself(t *testing.T) {
	a := startApp(t, Timeout)
	info := testInfo(t, a.info.Port)
	info.Instance = a.info.Instance
	if _, err := dialQuickly(info); !errors.Is(err, ErrAuth) {
		t.Fatalf("Dial: %v, want ErrAuth", err)
	}
	if err := a.result(t); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "closed mid-handshake") {
		t.Fatalf("Accept: %v, want the bridge to have closed before proving", err)
	}
}

func TestDialEndsWithItsContextOrTheTimeout(t *testing.T) {
	port, _ := fakeApp(t, func(p *rawPeer) { p.hello(); time.Sleep(3 * time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, testInfo(t, port)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dial to a silent app: %v, want the context's deadline", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := Dial(ctx, testInfo(t, port)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial cancelled: %v, want context.Canceled", err)
	}
}

func TestDialTellsNoAppFromAWrongApp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	_, err = dialQuickly(testInfo(t, port))
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, ErrAuth) || errors.Is(err, ErrProtocol) {
		t.Fatalf("Dial with nothing listening: %v, want connection refused", err)
	}
}

// What the app sends right after "ok" is not lost in the handshake's buffer.
func TestDialKeepsWhatTheAppSentAfterOK(t *testing.T) {
	var info appdata.Info
	const next = `{"jsonrpc":"2.0","method":"octo/disconnected"}`
	port, _ := fakeApp(t, func(p *rawPeer) {
		h := p.hello()
		ns := nonce(t)
		p.send(challengeLine(ns, info.Instance, appProof(info, h.Nonce, ns)))
		p.r.ReadString('\n')
		io.WriteString(p.conn, `{"ok":true}`+"\n"+next+"\n")
	})
	info = testInfo(t, port)
	conn, err := dialQuickly(info)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != next+"\n" {
		t.Fatalf("first line after the handshake: %q, %v; want %q", line, err, next)
	}
}

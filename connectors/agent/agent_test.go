package agent_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/connectors/agent"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// served is a started config with an agent connector on a data folder of its own.
type served struct {
	svc  *runtime.Service
	dir  string
	info appdata.Info
	log  *runtimetest.Buffer
}

func serve(t *testing.T, settings string) *served {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	log := &runtimetest.Buffer{}
	svc := runtimetest.StartConfig(t, `
connectors: [ { name: agents, type: agent, settings: { dataDir: "`+dir+`", `+settings+` } } ]
flows: [ { name: f, source: { connector: agents }, process: [ { type: test-agent } ] } ]
`, log)
	info, err := appdata.ReadInfo(dir)
	if err != nil {
		t.Fatalf("after Start: %v", err)
	}
	return &served{svc: svc, dir: dir, info: info, log: log}
}

// bridge is a connection that passed the handshake.
type bridge struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, info appdata.Info) *bridge {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := handshake.Dial(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return &bridge{conn: conn, r: bufio.NewReader(conn)}
}

func (b *bridge) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(b.conn, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (b *bridge) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		line, err := b.r.ReadString('\n')
		if err != nil || strings.TrimSuffix(line, "\n") != w {
			t.Fatalf("read %q, %v; want %q", line, err, w)
		}
	}
}

func (b *bridge) expectClosed(t *testing.T) {
	t.Helper()
	if line, err := b.r.ReadString('\n'); err == nil {
		t.Fatalf("read %q; want the connection closed", line)
	}
}

func TestStartWritesAgentJSONAndStopRemovesIt(t *testing.T) {
	s := serve(t, "")
	fi, err := os.Stat(filepath.Join(s.dir, appdata.InfoFile))
	if err != nil || fi.Mode().Perm() != 0o600 || s.info.PID != os.Getpid() {
		t.Fatalf("agent.json %v, %v, pid %d", fi.Mode(), err, s.info.PID)
	}
	b := dial(t, s.info)
	b.expect(t, "hello 1")
	b.send(t, "ping")
	b.expect(t, "got ping")

	if err := s.svc.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.expect(t, "drained 1")
	b.expectClosed(t)
	if _, err := appdata.ReadInfo(s.dir); !errors.Is(err, appdata.ErrNoApp) {
		t.Fatalf("after Stop: %v, want ErrNoApp", err)
	}
	if _, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(s.info.Port))); err == nil {
		t.Fatal("the port still accepts after Stop")
	}
}

func TestLinesAreAnsweredOnTheirOwnConnection(t *testing.T) {
	s := serve(t, "maxLineBytes: 16")
	// One after the other: a session is numbered when the app has checked the bridge's proof.
	a := dial(t, s.info)
	a.expect(t, "hello 1")
	b := dial(t, s.info)
	b.expect(t, "hello 2")
	for _, tc := range []struct {
		name, send string
		want       []string
	}{
		{"a line is answered with one line", "who", []string{"session %d"}},
		{"a CRLF line arrives without its CR", "crlf\r", []string{"got crlf"}},
		{"a stream answer is one line per event", "stream", []string{"one", "two"}},
		{"the session's own stream is written too", "push", []string{"pushed"}},
		{"a line over maxLineBytes reaches the flow marked too long", strings.Repeat("x", 17), []string{"too long for 16"}},
		{"a failing flow writes nothing", "fail\nwho", []string{"session %d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []*bridge{a, b} {
				c.send(t, tc.send)
			}
			for i, c := range []*bridge{a, b} {
				want := make([]string, len(tc.want))
				for j, w := range tc.want {
					want[j] = strings.ReplaceAll(w, "%d", fmt.Sprint(i+1))
				}
				c.expect(t, want...)
			}
		})
	}
}

// A connection that fails the handshake never reaches the flow, and the session beside it goes
// on as if nothing happened.
func TestAFailedHandshakeNeverReachesTheFlowNorDisturbsAnother(t *testing.T) {
	s := serve(t, "")
	good := dial(t, s.info)
	good.expect(t, "hello 1")

	wrong := s.info
	other, _ := appdata.NewInfo(s.info.Port)
	wrong.Token = other.Token
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := handshake.Dial(ctx, wrong); !errors.Is(err, handshake.ErrAuth) {
		t.Fatalf("Dial with another token: %v, want ErrAuth", err)
	}
	raw, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(s.info.Port)))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(raw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n"+"who\n")
	got, _ := io.ReadAll(raw)
	if want := `{"error":"not an octo agent handshake: the first line must be {\"octo\":\"agent/1\",\"nonce\":…}"}` + "\n"; string(got) != want {
		t.Fatalf("a client without the handshake got %q; want %q and the connection closed", got, want)
	}

	good.send(t, "who")
	good.expect(t, "session 1")
	next := dial(t, s.info)
	next.expect(t, "hello 2") // the refused connections were given no session
	if !strings.Contains(s.log.String(), "agent connection refused") {
		t.Fatalf("the refusals were not logged:\n%s", s.log)
	}
}

func TestTheFlowEndingASessionClosesItsConnectionOnly(t *testing.T) {
	s := serve(t, "")
	// One after the other: a session is numbered when the app has checked the bridge's proof.
	a := dial(t, s.info)
	a.expect(t, "hello 1")
	b := dial(t, s.info)
	b.expect(t, "hello 2")
	a.send(t, "bye")
	a.expectClosed(t)
	b.send(t, "who")
	b.expect(t, "session 2")
}

func TestTheBridgeEndingItsInputEndsTheSession(t *testing.T) {
	sessionsMu.Lock()
	clear(ended)
	sessionsMu.Unlock()
	s := serve(t, "")
	b := dial(t, s.info)
	b.expect(t, "hello 1")
	b.send(t, "who")
	if err := b.conn.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	b.expect(t, "session 1")
	b.expectClosed(t) // Ended ended the stream, and the connection with it
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	if !ended[1] {
		t.Fatal("the flow did not hear Ended")
	}
}

// A bridge that stops reading loses its connection after stallTimeout; the others do not.
func TestAStalledBridgeLosesOnlyItsOwnConnection(t *testing.T) {
	s := serve(t, "stallTimeout: 300ms")
	// One after the other: a session is numbered when the app has checked the bridge's proof.
	stalled := dial(t, s.info)
	stalled.expect(t, "hello 1")
	fine := dial(t, s.info)
	fine.expect(t, "hello 2")
	stalled.send(t, "big") // 32 MB it will not read
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.log.String(), "writing to an agent failed") {
		if time.Now().After(deadline) {
			t.Fatalf("the stalled connection was not closed:\n%s", s.log)
		}
		fine.send(t, "who")
		fine.expect(t, "session 2")
		time.Sleep(50 * time.Millisecond)
	}
	fine.send(t, "who")
	fine.expect(t, "session 2")
}

// A bridge past maxConnections passes the handshake and is told the app is busy, and so is a
// connection past maxHandshakes before it sends a byte; silent connections are closed at the
// handshake timeout, and then a bridge gets in again.
func TestConnectionsPastTheirBudgetAreToldTheAppIsBusy(t *testing.T) {
	// The handshake timeout is long enough that a loaded machine still sees both silent
	// connections waiting in the handshake before they are closed.
	s := serve(t, "maxConnections: 1, maxHandshakes: 2, handshakeTimeout: 2s")
	a := dial(t, s.info)
	a.expect(t, "hello 1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := handshake.Dial(ctx, s.info); !errors.Is(err, handshake.ErrBusy) || !strings.Contains(err.Error(), "maxConnections") {
		t.Fatalf("a second session: %v, want busy", err)
	}
	a.conn.Close()
	var silent []net.Conn
	for range 2 {
		raw, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(s.info.Port)))
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		silent = append(silent, raw)
	}
	polling := time.Now()
	waitFor(t, func() bool { // both silent ones are in the handshake
		conn, err := handshake.Dial(ctx, s.info)
		if err == nil { // in before the silent ones were counted: give the session back
			conn.Close()
		}
		return errors.Is(err, handshake.ErrBusy) && strings.Contains(err.Error(), "maxHandshakes")
	})
	refusing := time.Since(polling)
	for _, raw := range silent {
		raw.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(raw); err != nil {
			t.Fatalf("a silent connection was not closed at the handshake timeout: %v", err)
		}
	}
	waitFor(t, func() bool {
		conn, err := handshake.Dial(ctx, s.info)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
	// Refusals are logged at most once a second, however many there were.
	if n := strings.Count(s.log.String(), "too many in the handshake"); n > 1+int(refusing/time.Second) {
		t.Fatalf("the refusals were logged %d times in %v:\n%s", n, refusing, s.log.String())
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10 s")
		}
	}
}

func TestASecondAppOnTheSameDataFolderDoesNotStart(t *testing.T) {
	s := serve(t, "")
	svc, err := runtimetest.BuildConfig(t, `
connectors: [ { name: agents, type: agent, settings: { dataDir: "`+s.dir+`" } } ]
flows: [ { name: f, source: { connector: agents }, process: [ { type: test-agent } ] } ]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); !errors.Is(err, appdata.ErrAppRunning) {
		svc.Stop(context.Background())
		t.Fatalf("Start beside a running app: %v, want ErrAppRunning", err)
	}
	if info, err := appdata.ReadInfo(s.dir); err != nil || info != s.info {
		t.Fatalf("the first app's agent.json changed: %+v, %v", info, err)
	}
}

func TestTheDataFolderDefaultsToOCTODATADIR(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OCTO_DATA_DIR", dir)
	svc, err := runtimetest.BuildConfig(t, `
connectors: [ { name: agents, type: agent } ]
flows: [ { name: f, source: { connector: agents }, process: [ { type: test-agent } ] } ]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.Connector("agents").(*agent.Connector).DataDir(); got != dir {
		t.Fatalf("DataDir = %q, want %q", got, dir)
	}
}

// Stop does not wait for a handshake that is still going on: nothing is owed to it.
func TestStopClosesHandshakesInProgressAtOnce(t *testing.T) {
	s := serve(t, "")
	raw, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(s.info.Port)))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	b := dial(t, s.info) // a session too, so Stop has one to drain
	b.expect(t, "hello 1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second) // under the handshake's 5 s
	defer cancel()
	if err := s.svc.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := raw.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the silent connection read %d bytes after Stop", n)
	}
}

// A data folder that cannot be made fails Start with the reason, and leaves nothing listening.
func TestStartFailsWhenTheDataFolderCannotBeMade(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := runtimetest.BuildConfig(t, `
connectors: [ { name: agents, type: agent, settings: { dataDir: "`+filepath.Join(file, "data")+`" } } ]
flows: [ { name: f, source: { connector: agents }, process: [ { type: test-agent } ] } ]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "making the data folder") {
		svc.Stop(context.Background())
		t.Fatalf("Start: %v, want the data folder's problem", err)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Bridges that write lines and never read their answers are held back by their own sockets:
// the connector holds what it is writing for each, not all they sent, and another bridge is
// answered meanwhile.
func TestBridgesThatNeverReadHoldBoundedMemoryAndOthersAreAnswered(t *testing.T) {
	s := serve(t, "stallTimeout: 1m")
	fine := dial(t, s.info)
	fine.expect(t, "hello 1")
	before := heapInUse()
	const stalledBridges, lineBytes, maxLines = 4, 4 << 10, 16 << 10 // up to 64 MB each
	line := strings.Repeat("x", lineBytes-1) + "\n"
	blocked := make(chan bool, stalledBridges)
	for range stalledBridges {
		b := dial(t, s.info) // its hello is never read either
		go func() {
			_ = b.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
			for range maxLines {
				if _, err := io.WriteString(b.conn, line); err != nil {
					blocked <- true
					return
				}
			}
			blocked <- false
		}()
	}
	held := 0
	for range stalledBridges {
		if <-blocked {
			held++
		}
	}
	if held == 0 {
		t.Fatal("every bridge wrote all its lines: the connector read on without its answers being taken")
	}
	fine.send(t, "who")
	fine.expect(t, "session 1")
	if after := heapInUse(); after > before+16<<20 {
		t.Fatalf("the heap grew from %d to %d bytes with %d bridges not reading", before, after, stalledBridges)
	}
}

// Bridges that ask for a large answer and close at once are let go (their sessions end,
// their goroutines with them: goleak checks) and another bridge is answered.
func TestABridgeThatClosesBeforeItsAnswerEndsOnlyItsSession(t *testing.T) {
	s := serve(t, "")
	fine := dial(t, s.info)
	fine.expect(t, "hello 1")
	for range 3 {
		b := dial(t, s.info)
		b.send(t, "big")
		b.conn.Close()
	}
	// Generous: each session builds a 32 MB answer first, slow under -race on a loaded machine.
	deadline := time.Now().Add(30 * time.Second)
	for n := 2; n <= 4; n++ {
		for !strings.Contains(s.log.String(), fmt.Sprintf(`msg="agent disconnected" connector=agents session=%d`, n)) {
			if time.Now().After(deadline) {
				t.Fatalf("session %d was not let go:\n%s", n, s.log)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	fine.send(t, "who")
	fine.expect(t, "session 1")
}

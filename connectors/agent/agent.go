// Package agent is the agent connector: the octo app's endpoint for AI agent bridges (`octo mcp`).
// It listens on 127.0.0.1 on a random port, writes the port and a fresh token to agent.json in
// the data folder (agentlink/appdata) when it starts and removes it when it stops, runs the
// mutual HMAC handshake (agentlink/handshake) on every connection, and then serves each
// authenticated connection as a line session of its one flow: the same events as the stdio
// connector (a *stdiomsg.Event: Opened, each Line, Ended; lines up to maxLineBytes, a longer
// one a Line marked TooLong), with the connection's number in Event.Session. What the flow
// answers is written back on that connection, one line per message.
//
// Connections are independent: each has its own goroutines, and a connection that fails the
// handshake, stalls, sends garbage or breaks is closed alone. When the Opened stream of a
// session ends (the flow ended the session), its connection is closed once it is written out.
// Stop removes agent.json first, so no bridge dials a closing app, then drains each session's
// stream as the stdio connector does and closes the connections.
//
// It knows nothing of MCP: a flow running mcp-mock, mcp-router or the app's agent-tools block
// (through blocks/mcp/mcpmsg) gives the lines their meaning.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/lograte"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "agent",
		Summary: "serves one flow to AI agent bridges (octo mcp) over authenticated loopback connections, a line session each",
		Doc: "Listens on 127.0.0.1 on a random port and writes the port and a fresh token to agent.json in the " +
			"data folder (readable by the user only), removing it on stop. A connection another user opened is " +
			"closed at once (on Linux, where the kernel says who opened it). Every other one must pass a mutual " +
			"HMAC-SHA256 handshake over that token within handshakeTimeout; handshakes in progress and sessions " +
			"have budgets of their own, so silent sockets cannot shut bridges out, and a bridge refused for either " +
			"is told so. Then it is a line session of the flow, as on the stdio connector: one message per line " +
			"each way, the connection's number telling sessions apart. One app serves a data folder at a time.",
		Example:   "connectors:\n  - { name: agents, type: agent, settings: { dataDir: /tmp/octo-data } }\nflows:\n  - name: tools\n    source: { connector: agents }\n",
		Build:     runtime.ConnectorFunc(build),
		Transport: stdiomsg.Transport,
	})
}

// Settings are the agent connector's settings.
type Settings struct {
	DataDir        string        `yaml:"dataDir" example:"/home/me/.local/share/octo" doc:"The data folder agent.json is written to; default: $OCTO_DATA_DIR, else the system's place for octo's data (Linux ~/.local/share/octo or $XDG_DATA_HOME/octo, macOS ~/Library/Application Support/octo, Windows %APPDATA%\\octo)."`
	Port           int           `yaml:"port" min:"0" max:"65535" doc:"The port on 127.0.0.1 bridges connect to; 0 (the default) takes a free one. agent.json tells the bridge either way; set one when a sandbox or firewall lets only a known port through."`
	MaxLineBytes   int           `yaml:"maxLineBytes" default:"67108864" min:">0" doc:"The longest line read (64 MB); a longer one reaches the flow as a line event with no body, marked too long."`
	StallTimeout   time.Duration `yaml:"stallTimeout" default:"1m" min:">0" doc:"How long a write to a connection may wait for the bridge to read; then that connection is closed."`
	MaxConnections int           `yaml:"maxConnections" default:"64" min:">0" max:"10000" doc:"The most sessions (connections past the handshake) open at once; a bridge past it is told the app is busy."`
	MaxHandshakes  int           `yaml:"maxHandshakes" default:"16" min:">0" max:"10000" doc:"The most connections still in the handshake at once; one past it is told the app is busy and closed."`
	// HandshakeTimeout is short: a bridge on this machine answers in milliseconds.
	HandshakeTimeout time.Duration `yaml:"handshakeTimeout" default:"2s" min:">0" max:"5s" doc:"How long a connection has to pass the handshake; then it is closed."`
}

// Connector serves one flow to the bridges that pass the handshake.
type Connector struct {
	name   string
	dir    string
	set    Settings
	logger *slog.Logger
	flow   *runtime.Flow

	ln         net.Listener
	info       appdata.Info
	lock       *appdata.Lock
	handshakes chan struct{} // one per connection in the handshake
	sessions   atomic.Int64  // connections past it
	nextID     atomic.Uint64
	refusals   *lograte.Limit // a flood of refused connections logs a line a second

	mu      sync.Mutex
	closing bool                // under mu: no more connections are served
	open    map[uint64]*session // under mu: the authenticated connections
	conns   map[net.Conn]bool   // under mu: every open connection; true once it is a session
	wg      sync.WaitGroup      // the accept loop and every connection
}

func build(b *runtime.ConnectorBuild, s *Settings) (runtime.Connector, error) {
	dir := s.DataDir
	if dir == "" {
		var err error
		if dir, err = appdata.DataDir(""); err != nil {
			return nil, b.Errorf(&s.DataDir, "%v", err)
		}
	}
	return &Connector{name: b.Name, dir: dir, set: *s, logger: b.Logger(), refusals: lograte.New(time.Second),
		handshakes: make(chan struct{}, s.MaxHandshakes), open: make(map[uint64]*session), conns: make(map[net.Conn]bool)}, nil
}

// Attach takes the connector's one flow.
func (c *Connector) Attach(_ *runtime.SourceBuild, flow *runtime.Flow) error {
	if c.flow != nil {
		return fmt.Errorf("connector %q already serves flow %q: agent sessions go to one flow", c.name, c.flow.Name)
	}
	c.flow = flow
	return nil
}

// DataDir is the data folder the connector writes agent.json to.
func (c *Connector) DataDir() string { return c.dir }

// Start takes the data folder's app lock, listens and writes agent.json.
func (c *Connector) Start(context.Context) error {
	if c.flow == nil {
		return nil
	}
	lock, err := appdata.LockApp(c.dir)
	if err != nil {
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.set.Port)))
	if err != nil {
		lock.Unlock()
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	info, err := appdata.NewInfo(ln.Addr().(*net.TCPAddr).Port)
	if err == nil {
		err = appdata.WriteInfo(c.dir, info)
	}
	if err != nil {
		ln.Close()
		lock.Unlock()
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	c.ln, c.info, c.lock = ln, info, lock
	c.logger.Info("serving agents", "port", info.Port, "dataDir", c.dir)
	c.wg.Add(1)
	go c.accept()
	return nil
}

// accept serves each connection in its own goroutine until the listener closes. What a
// client can open at will costs the app little: another user's connection is closed before a
// byte is read, and one past the handshake budget is told the app is busy.
func (c *Connector) accept() {
	defer c.wg.Done()
	self := os.Getuid()
	for {
		conn, err := c.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of descriptors and the like: wait rather than spin
			c.logger.Warn("accepting an agent connection failed", "err", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if uid, known := peerUID(conn); known && uid != self {
			conn.Close()
			c.refused("agent connections from another user closed", "uid", uid)
			continue
		}
		select {
		case c.handshakes <- struct{}{}:
		default:
			handshake.RefuseBusy(conn, c.busyHandshakes())
			conn.Close()
			c.refused("agent connections refused: too many in the handshake", "max", c.set.MaxHandshakes)
			continue
		}
		if !c.track(conn) {
			<-c.handshakes
			conn.Close()
			return
		}
		go c.serve(conn)
	}
}

// refused logs a refused connection, at most once a second with the count held back.
func (c *Connector) refused(msg string, args ...any) {
	if ok, skipped := c.refusals.Allow(); ok {
		c.logger.Warn(msg, append(args, "alsoRefusedSinceLastLine", skipped)...)
	}
}

func (c *Connector) busyHandshakes() string {
	return fmt.Sprintf("too many connections are in the handshake (%d, the agent connector's maxHandshakes)", c.set.MaxHandshakes)
}

// admit takes a session slot for a bridge that passed the handshake, or says why not.
func (c *Connector) admit() error {
	if c.sessions.Add(1) > int64(c.set.MaxConnections) {
		c.sessions.Add(-1)
		return fmt.Errorf("too many agent sessions are open (%d, the agent connector's maxConnections)", c.set.MaxConnections)
	}
	return nil
}

// track records conn as open, false once the connector is closing.
func (c *Connector) track(conn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.conns[conn] = false
	c.wg.Add(1)
	return true
}

func (c *Connector) untrack(conn net.Conn) {
	c.mu.Lock()
	delete(c.conns, conn)
	c.mu.Unlock()
	conn.Close()
	c.wg.Done()
}

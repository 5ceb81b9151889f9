// Package agent is the agent connector: the octo app's endpoint for AI agent bridges (`octo mcp`).
// It listens on 127.0.0.1 on a random port, writes the port and a fresh token to agent.json in
// the data folder (blocks/agent/appdata) when it starts and removes it when it stops, runs the
// mutual HMAC handshake (blocks/agent/handshake) on every connection, and then serves each
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
// (through blocks/mcp/mcpflow) gives the lines their meaning.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/blocks/agent/appdata"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "agent",
		Summary: "serves one flow to AI agent bridges (octo mcp) over authenticated loopback connections, a line session each",
		Doc: "Listens on 127.0.0.1 on a random port and writes the port and a fresh token to agent.json in the " +
			"data folder (readable by the user only), removing it on stop. Every connection must pass a mutual " +
			"HMAC-SHA256 handshake over that token within 5 seconds; then it is a line session of the flow, as on " +
			"the stdio connector: one message per line each way, the connection's number telling sessions apart. " +
			"One app serves a data folder at a time.",
		Example:   "connectors:\n  - { name: agents, type: agent, settings: { dataDir: /tmp/octo-data } }\nflows:\n  - name: tools\n    source: { connector: agents }\n",
		Build:     runtime.ConnectorFunc(build),
		Transport: stdiomsg.Transport,
	})
}

// Settings are the agent connector's settings.
type Settings struct {
	DataDir        string        `yaml:"dataDir" example:"/home/me/.local/share/octo" doc:"The data folder agent.json is written to; default: $OCTO_DATA_DIR, else the system's place for octo's data (Linux ~/.local/share/octo or $XDG_DATA_HOME/octo, macOS ~/Library/Application Support/octo, Windows %APPDATA%\\octo)."`
	MaxLineBytes   int           `yaml:"maxLineBytes" default:"67108864" min:">0" doc:"The longest line read (64 MB); a longer one reaches the flow as a line event with no body, marked too long."`
	StallTimeout   time.Duration `yaml:"stallTimeout" default:"1m" min:">0" doc:"How long a write to a connection may wait for the bridge to read; then that connection is closed."`
	MaxConnections int           `yaml:"maxConnections" default:"64" min:">0" max:"10000" doc:"The most connections open at once, counting those still in the handshake; more are closed at once."`
}

// Connector serves one flow to the bridges that pass the handshake.
type Connector struct {
	name   string
	dir    string
	set    Settings
	logger *slog.Logger
	flow   *runtime.Flow

	ln     net.Listener
	info   appdata.Info
	lock   *appdata.Lock
	slots  chan struct{} // one per open connection
	nextID atomic.Uint64

	mu       sync.Mutex
	closing  bool                // under mu: no more connections are served
	sessions map[uint64]*session // under mu: the authenticated connections
	conns    map[net.Conn]bool   // under mu: every open connection; true once it is a session
	wg       sync.WaitGroup      // the accept loop and every connection
}

func build(b *runtime.ConnectorBuild, s *Settings) (runtime.Connector, error) {
	dir := s.DataDir
	if dir == "" {
		var err error
		if dir, err = appdata.DataDir(""); err != nil {
			b.Errorf(&s.DataDir, "%v", err)
			return nil, nil
		}
	}
	return &Connector{name: b.Name, dir: dir, set: *s, logger: b.Logger(),
		slots: make(chan struct{}, s.MaxConnections), sessions: make(map[uint64]*session), conns: make(map[net.Conn]bool)}, nil
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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

// accept serves each connection in its own goroutine until the listener closes.
func (c *Connector) accept() {
	defer c.wg.Done()
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
		select {
		case c.slots <- struct{}{}:
		default:
			c.logger.Warn("agent connection refused: too many open", "max", c.set.MaxConnections)
			conn.Close()
			continue
		}
		if !c.track(conn) {
			<-c.slots
			conn.Close()
			return
		}
		go c.serve(conn)
	}
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
	<-c.slots
	c.wg.Done()
}

package app

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Agent is one agent connected to the app, for the console.
type Agent struct {
	ID    uint64
	Name  string // its clientInfo name
	Since time.Time
}

// agents are the agents connected now.
type agents struct {
	mu   sync.Mutex
	next uint64
	on   map[uint64]*connected
}

type connected struct {
	Agent
	disconnect func() // tells the agent and closes its connection
}

// Connect records an agent that connected; disconnect, called by Disconnect, tells it and
// closes its connection. The returned leave must be called when the connection ends.
func (a *App) Connect(name string, disconnect func()) (id uint64, leave func()) {
	g := &a.agents
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.on == nil {
		g.on = map[uint64]*connected{}
	}
	g.next++
	id = g.next
	g.on[id] = &connected{Agent: Agent{ID: id, Name: name, Since: time.Now()}, disconnect: disconnect}
	a.log.Info("agent connected", "agent", name, "id", id)
	var once sync.Once
	return id, func() {
		once.Do(func() {
			g.mu.Lock()
			delete(g.on, id)
			g.mu.Unlock()
			a.log.Info("agent disconnected", "agent", name, "id", id)
		})
	}
}

// Agents lists the agents connected now, the longest connected first.
func (a *App) Agents() []Agent {
	g := &a.agents
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Agent, 0, len(g.on))
	for _, c := range g.on {
		out = append(out, c.Agent)
	}
	slices.SortFunc(out, func(x, y Agent) int { return cmp.Compare(x.ID, y.ID) })
	return out
}

// Disconnect disconnects the agent id: it is sent octo/disconnected and its connection closes.
// It reports whether such an agent was connected.
func (a *App) Disconnect(id uint64) bool {
	g := &a.agents
	g.mu.Lock()
	c := g.on[id]
	delete(g.on, id)
	g.mu.Unlock()
	if c == nil {
		return false
	}
	a.log.Info("disconnecting agent", "agent", c.Name, "id", id)
	c.disconnect()
	return true
}

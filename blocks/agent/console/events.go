package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime"
)

// How often the event stream looks for changes, and how often it says it is alive.
const (
	eventsPoll      = 200 * time.Millisecond
	statesEvery     = 5 // polls between two reads of the servers' states (they parse the files)
	eventsKeepAlive = 15 * time.Second
	eventsBatch     = 200 // traffic entries per event at most
)

// events opens the live stream (?only=traffic: traffic alone): "traffic" (a JSON array of new
// entries that match the filter), "workspace" (a server file, workspace.yaml or a server's state changed: read the
// state again), "agents" (an agent came or went, a question is waiting or was decided), and
// "ping" now and then.
func (c *api) events(_ context.Context, r *request) reply {
	after := c.app.Store().Last()
	if s := r.ex.Query().Get("after"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return failf(http.StatusBadRequest, "after is %s: a traffic seq", quoteLog(s))
		}
		after = n
	}
	only := r.ex.Query().Get("only")
	if only != "" && only != "traffic" {
		return failf(http.StatusBadRequest, "only is %s: traffic, or leave it out for every kind", quoteLog(only))
	}
	st := &eventStream{c: c, f: filterOf(r), seq: after, trafficOnly: only == "traffic"}
	if !st.trafficOnly {
		st.files, st.states, st.agents = st.filesPrint(), st.statesPrint(), st.agentsPrint()
	}
	return reply{stream: st}
}

// eventStream is one page's live stream.
type eventStream struct {
	c                     *api
	f                     filter
	seq                   uint64 // the last traffic entry looked at
	polls                 int
	files, states, agents string // what was last seen of each
	hello                 bool
	trafficOnly           bool // ?only=traffic: a traffic panel's stream, which the page's own stream complements
	sent                  time.Time
}

// Next implements runtime.Stream.
func (s *eventStream) Next(ctx context.Context) (runtime.Event, error) {
	if !s.hello {
		s.hello, s.sent = true, time.Now()
		return event("hello", map[string]uint64{"trafficLast": s.seq}), nil
	}
	tick := time.NewTicker(eventsPoll)
	defer tick.Stop()
	for {
		if ev, ok := s.next(); ok {
			s.sent = time.Now()
			return ev, nil
		}
		var changed <-chan struct{}
		if p := s.c.app.Pending(); p != nil {
			changed = p.Changed()
		}
		select {
		case <-ctx.Done():
			return runtime.Event{}, ctx.Err()
		case <-tick.C:
		case <-changed:
		}
	}
}

// next is the next event due, if any.
func (s *eventStream) next() (runtime.Event, bool) {
	var batch []agenttools.TrafficEntry
	for len(batch) < eventsBatch {
		page := s.c.app.Store().After(s.seq, eventsBatch)
		if len(page) == 0 {
			break
		}
		for i := range page {
			s.seq = page[i].Seq
			if s.f.match(&page[i]) {
				if batch = append(batch, page[i]); len(batch) == eventsBatch {
					break
				}
			}
		}
	}
	if len(batch) > 0 {
		return event("traffic", batch), true
	}
	if s.trafficOnly {
		return s.keepAlive()
	}
	if p := s.agentsPrint(); p != s.agents {
		s.agents = p
		return event("agents", nil), true
	}
	s.polls++
	files := s.filesPrint()
	states := s.states
	if files != s.files || s.polls%statesEvery == 0 {
		states = s.statesPrint()
	}
	if files != s.files || states != s.states {
		s.files, s.states = files, states
		return event("workspace", nil), true
	}
	return s.keepAlive()
}

// keepAlive is a ping when nothing was sent for a while.
func (s *eventStream) keepAlive() (runtime.Event, bool) {
	if time.Since(s.sent) > eventsKeepAlive {
		return event("ping", nil), true
	}
	return runtime.Event{}, false
}

func event(name string, v any) runtime.Event {
	data := []byte("{}")
	if v != nil {
		data, _ = json.Marshal(v)
	}
	return runtime.Event{Name: name, Data: data}
}

// filesPrint sums up the workspace's files (name, size, time): an edit from outside changes it.
func (s *eventStream) filesPrint() string {
	dir := s.c.app.Workspace()
	var b strings.Builder
	stamp := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	stamp(filepath.Join(dir, workspace.SettingsFile))
	entries, _ := os.ReadDir(filepath.Join(dir, workspace.ServersDir))
	for _, e := range entries {
		stamp(filepath.Join(dir, workspace.ServersDir, e.Name()))
	}
	return b.String()
}

// statesPrint sums up the servers' states.
func (s *eventStream) statesPrint() string {
	data, _ := json.Marshal(s.c.servers())
	return string(data)
}

// agentsPrint sums up the agents and the questions.
func (s *eventStream) agentsPrint() string {
	var b strings.Builder
	for _, g := range s.c.app.Agents() {
		fmt.Fprintf(&b, "a%d ", g.ID)
	}
	if p := s.c.app.Pending(); p != nil {
		for _, w := range p.Waiting() {
			fmt.Fprintf(&b, "w%d ", w.ID)
		}
		if h := p.History(); len(h) > 0 {
			fmt.Fprintf(&b, "h%d", h[len(h)-1].ID)
		}
	}
	return b.String()
}

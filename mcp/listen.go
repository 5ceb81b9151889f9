package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/mcp/tasks"
)

// This file is 2026-07-28's subscriptions/listen: in place of a session's GET stream and
// resources/subscribe, a client POSTs the notifications it wants and keeps the answer open
// as an event stream. The stream opens with notifications/subscriptions/acknowledged and then
// carries the list changes, resource updates and task status changes (tasknotify.go) the filter
// names, each tagged with the listen request's id as its subscription id. Only a server that
// announces changes (Listen) has any.

// MetaSubscriptionID tags a notification with the subscriptions/listen request it belongs to.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// subscriptionFilter is a listen request's params.notifications, narrowed to what the server
// can announce; it is also what the acknowledgement repeats.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	TaskIDs               []string `json:"taskIds,omitempty"` // the tasks extension's notifications/tasks
}

// listener is one open subscriptions/listen stream.
type listener struct {
	q      *stream.Queue
	id     json.RawMessage // the listen request's id: the subscription id
	filter subscriptionFilter
	owner  string          // who listens (requester): it hears only of its own tasks
	tasks  map[string]bool // filter.TaskIDs as a set
}

// listeners are the open listen streams of a server that announces changes (Listen).
type listeners struct {
	mu  sync.Mutex
	set map[*listener]struct{}
	max int
}

// wants reports whether l asked for notifications of kind ("tools", "prompts", "resources").
func (l *listener) wants(kind string) bool {
	switch kind {
	case "tools":
		return l.filter.ToolsListChanged
	case "prompts":
		return l.filter.PromptsListChanged
	case "resources":
		return l.filter.ResourcesListChanged
	}
	return false
}

// listen opens a subscriptions/listen stream for the request m (its _meta is meta, its HTTP
// request in), honouring of its filter what the server declares. More streams than the cap is
// 503. The stream opens with the acknowledgement, then the current state of each task it
// listens to.
func (s *Server) listen(m *jsonrpc.Message, meta []byte, in HTTPRequest) HTTPResponse {
	ls := s.listeners
	if ls == nil {
		return modernError(m.ID, methodNotFound(m.Method))
	}
	var p struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Notifications == nil {
		return modernError(m.ID, invalidParams("subscriptions/listen needs a notifications object"))
	}
	l := &listener{id: json.RawMessage(m.ID.String()), owner: requester(in.Header, in.Vars)}
	f, e := s.honoured(*p.Notifications, meta, l.owner)
	if e != nil {
		return modernError(m.ID, e)
	}
	l.filter, l.tasks = f, make(map[string]bool, len(f.TaskIDs))
	for _, id := range f.TaskIDs {
		l.tasks[id] = true
	}
	ack, _ := jsonrpc.EncodeNotification("notifications/subscriptions/acknowledged", struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications subscriptionFilter         `json:"notifications"`
	}{map[string]json.RawMessage{MetaSubscriptionID: l.id}, l.filter})
	if !ls.add(l, ack) {
		return jsonResponse(http.StatusServiceUnavailable, jsonrpc.AppendError(nil, m.ID,
			jsonrpc.NewError(-32000, "Service unavailable: too many subscriptions/listen streams")))
	}
	if len(l.tasks) > 0 {
		s.snapshot(context.Background(), l)
	}
	return HTTPResponse{Status: http.StatusOK, ContentType: ContentTypeSSE, Stream: l.q}
}

// add gives l its stream, starting with ack, and registers it; false when the cap is reached.
// The ack is queued before l is registered, so no change can come before it.
func (ls *listeners) add(l *listener, ack []byte) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.set) >= ls.max {
		return false
	}
	l.q = stream.New("", func() {
		ls.mu.Lock()
		delete(ls.set, l)
		ls.mu.Unlock()
	})
	_ = l.q.Push(context.Background(), "message", ack, false)
	ls.set[l] = struct{}{}
	return true
}

// honoured narrows a filter to what the server declares it can announce: of its taskIds, the
// live tasks owner may see. Asking for tasks without declaring the tasks extension is -32021;
// more than maxListenTaskIDs task ids is -32602.
func (s *Server) honoured(f subscriptionFilter, meta []byte, owner string) (subscriptionFilter, *jsonrpc.Error) {
	c := s.Capabilities
	f.ToolsListChanged = f.ToolsListChanged && c.ToolsListChanged && s.Tools != nil
	f.PromptsListChanged = f.PromptsListChanged && c.PromptsListChanged && s.Prompts != nil
	f.ResourcesListChanged = f.ResourcesListChanged && c.ResourcesListChanged && s.Resources != nil
	if !c.ResourcesSubscribe || s.Resources == nil {
		f.ResourceSubscriptions = nil
	}
	if len(f.TaskIDs) == 0 {
		return f, nil
	}
	caps, _ := jsonscan.Member(meta, MetaClientCapabilities)
	switch {
	case s.Tasks == nil:
		f.TaskIDs = nil
	case !declaresTasks(caps):
		return f, missingTasks("notifications.taskIds asks for task status notifications")
	case len(f.TaskIDs) > maxListenTaskIDs:
		return f, invalidParams("notifications.taskIds names %d tasks; one listen stream takes at most %d", len(f.TaskIDs), maxListenTaskIDs)
	default:
		f.TaskIDs = s.visible(context.Background(), f.TaskIDs, owner)
	}
	return f, nil
}

// Listen lets clients open subscriptions/listen streams, at most max at once, and has them hear
// of the changes to the tasks they name. It is for a front that has changes to announce (the
// stateful one, session.New), which then calls ListChanged and ResourceUpdated on a change and
// stop when it closes: every listen stream ends.
func (s *Server) Listen(max int) (stop func()) {
	ls := &listeners{set: map[*listener]struct{}{}, max: max}
	s.listeners = ls
	unwatch := func() {}
	if s.Tasks != nil {
		unwatch = s.Tasks.Watch("", func(r *tasks.Record) {
			ls.sendTask(r, func() []byte { return s.encodeTask(r, "", true) })
		})
	}
	return func() {
		unwatch()
		ls.end()
	}
}

// ListChanged tells the listen streams that asked that the list of kind ("tools", "resources"
// or "prompts") changed.
func (s *Server) ListChanged(kind string) {
	s.listeners.send("notifications/"+kind+"/list_changed", nil, func(l *listener) bool { return l.wants(kind) })
}

// ResourceUpdated tells the listen streams that name uri that it changed.
func (s *Server) ResourceUpdated(uri string) {
	s.listeners.send("notifications/resources/updated", map[string]any{"uri": uri}, func(l *listener) bool {
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	})
}

// send pushes a notification to the listeners match picks, tagged with each one's id; a
// listener whose stream is full is dropped (see drop) rather than holding the server back.
func (ls *listeners) send(method string, params map[string]any, match func(*listener) bool) {
	if ls == nil {
		return
	}
	ls.mu.Lock()
	picked := make([]*listener, 0, len(ls.set))
	for l := range ls.set {
		if match(l) {
			picked = append(picked, l)
		}
	}
	ls.mu.Unlock()
	for _, l := range picked {
		p := map[string]any{"_meta": map[string]json.RawMessage{MetaSubscriptionID: l.id}}
		for k, v := range params {
			p[k] = v
		}
		if msg, err := jsonrpc.EncodeNotification(method, p); err == nil {
			if errors.Is(l.q.Push(context.Background(), "message", msg, false), stream.ErrFull) {
				ls.drop(l)
			}
		}
	}
}

// drop gives up a listener whose stream is full: its client has taken nothing while a queue's
// worth of changes came (the connector's write is blocked), and has now missed one, so what it
// knows is stale until it listens again. Its place under the cap is free at once, and its stream
// ends after what it holds: a client that does read again sees the end and listens anew. The
// connection itself is the transport's to close (connectors/http: writeTimeout).
func (ls *listeners) drop(l *listener) {
	ls.mu.Lock()
	delete(ls.set, l)
	ls.mu.Unlock()
	l.q.End()
}

// end closes every listen stream (the server is closing).
func (ls *listeners) end() {
	if ls == nil {
		return
	}
	ls.mu.Lock()
	all := make([]*listener, 0, len(ls.set))
	for l := range ls.set {
		all = append(all, l)
	}
	ls.mu.Unlock()
	for _, l := range all {
		l.q.End()
	}
}

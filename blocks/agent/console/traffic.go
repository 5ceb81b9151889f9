package console

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/octo-run/octo/blocks/agent/agenttools"
)

// filter selects traffic entries by server (any case), session, method and tool.
type filter struct {
	server, session, method, tool string
}

func filterOf(r *request) filter {
	q := r.ex.Query()
	return filter{server: q.Get("server"), session: q.Get("session"), method: q.Get("method"), tool: q.Get("tool")}
}

func (f filter) match(e *agenttools.TrafficEntry) bool {
	return (f.server == "" || strings.EqualFold(e.Server, f.server)) &&
		(f.session == "" || e.Session == f.session) &&
		(f.method == "" || e.Method == f.method) &&
		(f.tool == "" || callsTool(e.Summary, f.tool))
}

// callsTool reports whether a summary ("tools/call get_weather", "result of tools/call
// get_weather") is about the tool.
func callsTool(summary, tool string) bool {
	words := strings.Fields(summary)
	for i := 0; i+1 < len(words); i++ {
		if words[i] == "tools/call" && words[i+1] == tool {
			return true
		}
	}
	return false
}

// matching walks every kept entry after seq, oldest first, calling each for those f matches.
func (c *api) matching(seq uint64, f filter, each func(e *agenttools.TrafficEntry)) uint64 {
	for {
		page := c.app.Store().After(seq, agenttools.MaxTrafficLimit)
		if len(page) == 0 {
			return seq
		}
		for i := range page {
			if f.match(&page[i]) {
				each(&page[i])
			}
		}
		seq = page[len(page)-1].Seq
	}
}

// traffic answers the newest entries that match (limit, default 500, at most 1000).
func (c *api) traffic(_ context.Context, r *request) reply {
	limit := 500
	if s := r.ex.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > agenttools.MaxTrafficLimit {
			return failf(http.StatusBadRequest, "limit is %s: a number from 1 to %d", quoteLog(s), agenttools.MaxTrafficLimit)
		}
		limit = n
	}
	last := c.app.Store().Last() // the page's live stream goes on after it
	out := []agenttools.TrafficEntry{}
	c.matching(0, filterOf(r), func(e *agenttools.TrafficEntry) {
		out = append(out, *e)
		if len(out) > 2*limit { // keep the newest, copying now and then
			out = append(out[:0:0], out[len(out)-limit:]...)
		}
	})
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return ok(map[string]any{"entries": out, "last": last})
}

func (c *api) clearTraffic(context.Context, *request) reply {
	c.app.Store().Clear()
	return ok(map[string]bool{"cleared": true})
}

// exportTraffic answers every kept entry that matches as JSON lines.
func (c *api) exportTraffic(_ context.Context, r *request) reply {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	c.matching(0, filterOf(r), func(e *agenttools.TrafficEntry) { _ = enc.Encode(e) })
	r.ex.SetReplyHeader("Content-Disposition", `attachment; filename="octo-traffic.jsonl"`)
	if b.Len() == 0 {
		return reply{status: http.StatusOK, raw: []byte{}, contentType: "application/x-ndjson"}
	}
	return reply{raw: b.Bytes(), contentType: "application/x-ndjson"}
}

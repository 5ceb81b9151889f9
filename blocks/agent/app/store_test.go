package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/session"
)

func event(method string, body int) session.TrafficEvent {
	msg := json.RawMessage(`"` + strings.Repeat("x", body) + `"`)
	return session.TrafficEvent{Time: time.Now(), Session: "s1", Direction: session.DirIn, Kind: session.TrafficRequest, Method: method, Message: msg}
}

func TestStoreDropsTheOldestBeyondItsBounds(t *testing.T) {
	t.Run("by count", func(t *testing.T) {
		s := app.NewStore(3, 1<<20)
		for i := range 5 {
			s.Observe("A", event("m"+string(rune('0'+i)), 10))
		}
		got := s.Query(agenttools.TrafficQuery{})
		if n, _ := s.Len(); n != 3 || len(got) != 3 || got[0].Method != "m2" || got[2].Method != "m4" || got[0].Seq != 3 {
			t.Fatalf("kept %d: %+v", n, got)
		}
	})
	t.Run("by bytes", func(t *testing.T) {
		s := app.NewStore(1000, 10_000)
		for range 100 {
			s.Observe("A", event("m", 1000))
		}
		n, bytes := s.Len()
		if bytes > 10_000 || n == 0 || n > 10 {
			t.Fatalf("kept %d entries, %d bytes", n, bytes)
		}
		if got := s.Query(agenttools.TrafficQuery{}); got[len(got)-1].Seq != 100 {
			t.Fatalf("the newest is not kept: %+v", got[len(got)-1])
		}
	})
	t.Run("a message larger than the bound is kept without its JSON", func(t *testing.T) {
		s := app.NewStore(10, 10_000)
		s.Observe("A", event("big", 20_000))
		got := s.Query(agenttools.TrafficQuery{})
		if len(got) != 1 || got[0].Message != nil || !strings.Contains(got[0].Summary, "too large") {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("limits: default 100, at most 1000", func(t *testing.T) {
		s := app.NewStore(0, 0)
		for range 1500 {
			s.Observe("A", event("m", 1))
		}
		if n := len(s.Query(agenttools.TrafficQuery{})); n != agenttools.DefaultTrafficLimit {
			t.Fatalf("default limit gave %d", n)
		}
		if n := len(s.Query(agenttools.TrafficQuery{Limit: 5000})); n != agenttools.MaxTrafficLimit {
			t.Fatalf("limit 5000 gave %d", n)
		}
		got := s.Query(agenttools.TrafficQuery{Since: time.Unix(0, 0), Limit: 2})
		if len(got) != 2 || got[0].Seq != 1 {
			t.Fatalf("since the beginning, limit 2 = %+v", got)
		}
	})
}

func BenchmarkStoreObserve(b *testing.B) {
	s := app.NewStore(0, 0)
	ev := event("tools/call", 200)
	b.ReportAllocs()
	for b.Loop() {
		s.Observe("A", ev)
	}
}

// A request with no session keeps the revision it came with, for the Traffic page to show.
func TestStoreKeepsASessionlessRequestsRevision(t *testing.T) {
	s := app.NewStore(0, 0)
	ev := event("tools/list", 1)
	ev.Session, ev.Version = "", mcp.Version20260728
	s.Observe("A", ev)
	got := s.Query(agenttools.TrafficQuery{})
	b, _ := json.Marshal(got[0])
	if !strings.Contains(string(b), `"version":"2026-07-28"`) || strings.Contains(string(b), `"session"`) {
		t.Fatalf("entry %s", b)
	}
}

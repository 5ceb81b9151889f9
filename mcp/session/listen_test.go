package session

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/stream"
)

// A subscriptions/listen stream whose client never reads holds at most a queue's worth of
// notifications (it misses the rest), while another listener is handed every change and the
// process's heap does not grow with the number sent.
func TestAListenerThatNeverReadsMissesChangesAndDoesNotHoldUpTheOthers(t *testing.T) {
	srv, _ := newStatefulServer(t)
	st := New(srv, Options{})
	defer st.Close()
	open := func() stream.Stream {
		t.Helper()
		out := st.ServeStreamable(context.Background(),
			mcptest.ModernPost("subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`, "{}"))
		if out.Stream == nil {
			t.Fatalf("no stream: %d %s", out.Status, out.Body)
		}
		return out.Stream
	}
	stalled, reader := open(), open()
	defer stalled.Close()
	defer reader.Close()
	next := func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ev, err := reader.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(ev.Data)
	}
	if ack := next(); !strings.Contains(ack, "subscriptions/acknowledged") {
		t.Fatalf("ack = %s", ack)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	send := func(n int) {
		t.Helper()
		for range n {
			st.ListChanged("tools")
			if got := next(); !strings.Contains(got, "notifications/tools/list_changed") {
				t.Fatalf("the reading listener got %s", got)
			}
		}
	}
	send(2 * stream.MaxEvents) // the stalled queue is full from here on
	before := heap()
	send(20 * stream.MaxEvents)
	if after := heap(); after > before+8<<20 {
		t.Fatalf("heap grew from %d to %d bytes while a listener did not read", before, after)
	}
	q := stalled.(*stream.Queue)
	_, _, held := q.Load()
	if held > stream.MaxEvents {
		t.Fatalf("the stalled listener holds %d events, over the bound %d", held, stream.MaxEvents)
	}
}

// A listen stream whose client leaves early gives its place back: past the cap, a new one is
// refused 503 until one closes, and those still open go on getting changes.
func TestAListenerThatLeavesGivesItsPlaceBack(t *testing.T) {
	const limit = 3
	st, listen := listenCapped(t, limit)
	open := make([]stream.Stream, limit)
	for i := range open {
		out := listen()
		if out.Stream == nil {
			t.Fatalf("listener %d: %d %s", i, out.Status, out.Body)
		}
		open[i] = out.Stream
	}
	if out := listen(); out.Status != 503 || out.Stream != nil {
		t.Fatalf("past the cap: %d %s", out.Status, out.Body)
	}
	_ = open[0].Close() // it leaves without reading anything
	again := listen()
	if again.Stream == nil {
		t.Fatalf("after one left: %d %s", again.Status, again.Body)
	}
	open[0] = again.Stream
	st.ListChanged("tools")
	for i, s := range open {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		for _, want := range []string{"subscriptions/acknowledged", "notifications/tools/list_changed"} {
			ev, err := s.Next(ctx)
			if err != nil || !strings.Contains(string(ev.Data), want) {
				t.Fatalf("listener %d: %s, %v; want %s", i, ev.Data, err, want)
			}
		}
		cancel()
		_ = s.Close()
	}
}

// A listen stream whose client takes nothing while a queue's worth of changes comes is given up
// at the next one: its place under the cap is free at once, and its stream ends after what it
// holds, so a client that reads again learns it must listen anew. A listener that reads is kept.
func TestAListenerThatFallsAQueueBehindGivesItsPlaceUp(t *testing.T) {
	st, listen := listenCapped(t, 2)
	stalled, reader := listen().Stream, listen().Stream
	if stalled == nil || reader == nil {
		t.Fatal("the listeners were not opened")
	}
	defer stalled.Close()
	defer reader.Close()
	if out := listen(); out.Status != 503 {
		t.Fatalf("past the cap: %d %s", out.Status, out.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range stream.MaxEvents + 1 { // the ack and stream.MaxEvents-1 changes fill the stalled queue
		st.ListChanged("tools")
		for _, want := range []string{"subscriptions/acknowledged", "notifications/tools/list_changed"}[min(i, 1):] {
			if ev, err := reader.Next(ctx); err != nil || !strings.Contains(string(ev.Data), want) {
				t.Fatalf("change %d: the reading listener got %s, %v; want %s", i, ev.Data, err, want)
			}
		}
	}
	again := listen()
	if again.Stream == nil {
		t.Fatalf("a listen after one fell behind: %d %s", again.Status, again.Body)
	}
	defer again.Stream.Close()
	held := 0
	for {
		_, err := stalled.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the stream given up did not end after %d events: %v", held, err)
		}
		held++
	}
	if held != stream.MaxEvents {
		t.Fatalf("the stream given up held %d events, want the %d its queue took", held, stream.MaxEvents)
	}
	st.ListChanged("tools")
	for _, s := range []stream.Stream{reader, again.Stream} {
		ev, err := s.Next(ctx)
		for err == nil && strings.Contains(string(ev.Data), "acknowledged") {
			ev, err = s.Next(ctx)
		}
		if err != nil || !strings.Contains(string(ev.Data), "notifications/tools/list_changed") {
			t.Fatalf("an open listener after the change: %s, %v", ev.Data, err)
		}
	}
}

// listenCapped is a stateful server with at most limit listeners (closed when the test ends),
// and what opens a listener for its tool list changes.
func listenCapped(t *testing.T, limit int) (*Front, func() StreamReply) {
	t.Helper()
	srv, _ := newStatefulServer(t)
	st := New(srv, Options{MaxSessions: limit})
	t.Cleanup(func() { st.Close() })
	return st, func() StreamReply {
		return st.ServeStreamable(context.Background(),
			mcptest.ModernPost("subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`, "{}"))
	}
}

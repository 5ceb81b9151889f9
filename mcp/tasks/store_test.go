package tasks_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/tasks"
)

// clock is a time the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func newStore(t *testing.T, l tasks.Limits) (*tasks.Memory, *clock) {
	t.Helper()
	s := tasks.NewMemory(l)
	c := &clock{now: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}
	s.SetClock(c.Now)
	t.Cleanup(s.Close)
	return s, c
}

// add records a working task of owner, created now.
func add(t *testing.T, s *tasks.Memory, c *clock, owner, id string) error {
	t.Helper()
	r := &tasks.Record{ID: id, Owner: owner, Created: c.Now(), Updated: c.Now(), Status: tasks.Working}
	if e := s.Add(context.Background(), r); e != nil {
		return e
	}
	return nil
}

func finish(t *testing.T, s *tasks.Memory, c *clock, owner, id string) {
	t.Helper()
	if _, e := s.Change(context.Background(), owner, id, func(r *tasks.Record) bool {
		return r.Settle(tasks.Completed, "", c.Now())
	}); e != nil {
		t.Fatal(e)
	}
}

func TestAnotherOwnersTaskIsAnsweredAsNone(t *testing.T) {
	s, c := newStore(t, tasks.Limits{})
	if err := add(t, s, c, "ada", "t1"); err != nil {
		t.Fatal(err)
	}
	if _, e := s.Get(context.Background(), "ada", "t1"); e != nil {
		t.Fatal(e)
	}
	_, theirs := s.Get(context.Background(), "bob", "t1")
	_, none := s.Get(context.Background(), "bob", "t9")
	if theirs == nil || none == nil || theirs.Code != -32602 ||
		strings.Replace(theirs.Message, "t1", "t9", 1) != none.Message {
		t.Fatalf("another's task: %v; no task: %v", theirs, none)
	}
}

func TestAChangeIsToldInOrderWithItsRevision(t *testing.T) {
	s, c := newStore(t, tasks.Limits{})
	if err := add(t, s, c, "", "t1"); err != nil {
		t.Fatal(err)
	}
	var told []string
	stop := s.Watch("t1", func(r *tasks.Record) { told = append(told, fmt.Sprintf("%s@%d", r.Status, r.Revision)) })
	ctx := context.Background()
	s.Change(ctx, "", "t1", func(r *tasks.Record) bool { r.Status = tasks.InputRequired; return true })
	s.Change(ctx, "", "t1", func(r *tasks.Record) bool { return false }) // no change, nothing told
	finish(t, s, c, "", "t1")
	stop()
	finish(t, s, c, "", "t1") // settled already, and nobody listens
	if got := strings.Join(told, " "); got != "input_required@1 completed@2" {
		t.Fatalf("told %q", got)
	}
}

func TestAnOwnerAtTheLimitMakesRoomWithAFinishedTaskOrIsRefused(t *testing.T) {
	s, c := newStore(t, tasks.Limits{MaxTasks: 10, MaxTasksPerOwner: 2})
	for _, id := range []string{"a1", "a2"} {
		if err := add(t, s, c, "ada", id); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Second)
	}
	err := add(t, s, c, "ada", "a3")
	if err == nil || !strings.Contains(err.Error(), "you already run 2 tasks") {
		t.Fatalf("a third running task: %v", err)
	}
	if err := add(t, s, c, "bob", "b1"); err != nil { // another owner is not held back
		t.Fatal(err)
	}
	finish(t, s, c, "ada", "a1")
	if err := add(t, s, c, "ada", "a3"); err != nil {
		t.Fatal(err)
	}
	if _, e := s.Get(context.Background(), "ada", "a1"); e == nil {
		t.Fatal("the finished task made no room")
	}
	if s.Len() != 3 {
		t.Fatalf("%d tasks kept, want 3", s.Len())
	}
}

func TestAFullStoreRefusesOnlyWhenNothingHasFinished(t *testing.T) {
	s, c := newStore(t, tasks.Limits{MaxTasks: 2, MaxTasksPerOwner: 2})
	add(t, s, c, "ada", "a1")
	add(t, s, c, "bob", "b1")
	if err := add(t, s, c, "cy", "c1"); err == nil || !strings.Contains(err.Error(), "the server already runs 2 tasks") {
		t.Fatalf("a task past the store's limit: %v", err)
	}
	finish(t, s, c, "bob", "b1")
	if err := add(t, s, c, "cy", "c1"); err != nil {
		t.Fatal(err)
	}
}

func TestAnExpiredTaskFailsAndSaysSo(t *testing.T) {
	s, c := newStore(t, tasks.Limits{TTL: time.Minute})
	add(t, s, c, "", "t1")
	var last string
	s.Watch("", func(r *tasks.Record) { last = r.Status + ": " + r.Message })
	c.Add(time.Minute)
	if _, e := s.Get(context.Background(), "", "t1"); e == nil || !strings.Contains(e.Message, `task "t1" has expired`) {
		t.Fatalf("an expired task: %v", e)
	}
	if last != "failed: The task expired" || s.Len() != 0 {
		t.Fatalf("told %q, %d kept", last, s.Len())
	}
}

func TestCloseCancelsTheTasksAndEndsTheirWork(t *testing.T) {
	s, c := newStore(t, tasks.Limits{})
	add(t, s, c, "", "t1")
	ended := make(chan struct{})
	s.Run(nil, nil, func(ctx context.Context) { <-ctx.Done(); close(ended) })
	s.Close()
	select {
	case <-ended:
	default:
		t.Fatal("Close returned with the work running")
	}
	if err := add(t, s, c, "", "t2"); err == nil {
		t.Fatal("a closed store took a task")
	}
}

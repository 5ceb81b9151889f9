package stream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestQueueBounds(t *testing.T) {
	ctx := context.Background()
	big := make([]byte, MaxBytes/4)
	t.Run("a queue holds at most MaxBytes of data", func(t *testing.T) {
		q := New("", nil)
		for i := range 4 {
			if err := q.Push(ctx, "message", big, false); err != nil {
				t.Fatalf("push %d: %v", i, err)
			}
		}
		if err := q.Push(ctx, "message", []byte("x"), false); !errors.Is(err, ErrFull) {
			t.Fatalf("push over the bound: %v", err)
		}
	})
	t.Run("a queue holds at most MaxEvents events", func(t *testing.T) {
		q := New("", nil)
		for range MaxEvents {
			if err := q.Push(ctx, "message", []byte("x"), false); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Push(ctx, "message", []byte("x"), false); !errors.Is(err, ErrFull) {
			t.Fatalf("push over the bound: %v", err)
		}
	})
	t.Run("an event larger than the bound enters an empty queue alone", func(t *testing.T) {
		q := New("", nil)
		huge := make([]byte, 2*MaxBytes)
		if err := q.Push(ctx, "message", huge, false); err != nil {
			t.Fatal(err)
		}
		if err := q.Push(ctx, "message", []byte("x"), false); !errors.Is(err, ErrFull) {
			t.Fatalf("push after it: %v", err)
		}
	})
	// These run in a synctest bubble, where synctest.Wait returns once the
	// producer is blocked for good: it surely waits, not just for a while.
	t.Run("a blocked producer goes on once the reader takes an event", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New("", nil)
			for range 4 {
				_ = q.Push(ctx, "message", big, false)
			}
			done := make(chan error, 1)
			go func() { done <- q.Push(ctx, "message", big, true) }()
			waiting(t, done)
			if _, err := q.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("waitRoom waits while the queue is full", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New("", nil)
			for range 4 {
				_ = q.Push(ctx, "message", big, false)
			}
			done := make(chan error, 1)
			go func() { done <- q.WaitRoom(ctx) }()
			waiting(t, done)
			if _, err := q.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	})
}

// waiting fails unless the goroutine that reports on done is blocked.
func waiting(t *testing.T, done <-chan error) {
	t.Helper()
	synctest.Wait()
	select {
	case err := <-done:
		t.Fatalf("did not wait: %v", err)
	default:
	}
}

func TestAQueueWhoseReaderStallsIsDropped(t *testing.T) {
	ctx := context.Background()
	fill := func(q *Queue) {
		for range MaxEvents {
			_ = q.Push(ctx, "message", []byte("x"), false)
		}
	}
	// On synctest's clock a reader is as quick or as slow as the test says,
	// however loaded the machine is.
	t.Run("a waiting producer gives up after the stall timeout and the queue closes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stalled := make(chan struct{})
			q := New("", nil).StallAfter(30*time.Millisecond, func() { close(stalled) })
			fill(q)
			start := time.Now()
			if err := q.Push(ctx, "message", []byte("y"), true); !errors.Is(err, ErrStalled) {
				t.Fatalf("push = %v, want ErrStalled", err)
			}
			if waited := time.Since(start); waited != 30*time.Millisecond {
				t.Fatalf("the producer gave up after %v, want the stall timeout, 30ms", waited)
			}
			if err := q.WaitRoom(ctx); !errors.Is(err, ErrStalled) {
				t.Fatalf("waitRoom = %v, want ErrStalled", err)
			}
			<-stalled
			synctest.Wait()
			if !q.IsClosed() {
				t.Fatal("the queue is still open")
			}
		})
	})
	t.Run("a reader that keeps taking is not stalled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New("", nil).StallAfter(100*time.Millisecond, func() { t.Error("stalled") })
			read := make(chan struct{})
			go func() {
				defer close(read)
				for range 2 * MaxEvents {
					time.Sleep(time.Millisecond)
					if _, err := q.Next(ctx); err != nil {
						return
					}
				}
			}()
			for i := range 2 * MaxEvents {
				if err := q.Push(ctx, "message", []byte(strings.Repeat("z", 10)), true); err != nil {
					t.Fatalf("push %d: %v", i, err)
				}
			}
			<-read
		})
	})
	t.Run("a burst into a queue idle for longer than the timeout gives the reader a fresh window", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New("", nil).StallAfter(200*time.Millisecond, func() { t.Error("stalled") })
			time.Sleep(250 * time.Millisecond)
			fill(q)
			done := make(chan error, 1)
			go func() { done <- q.Push(ctx, "message", []byte("y"), true) }()
			time.Sleep(150 * time.Millisecond) // a slow reader, within the window
			if _, err := q.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("push = %v", err)
			}
		})
	})
}

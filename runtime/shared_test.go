package runtime_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// listener is a shared bound port, the resource a reload keeps.
type listener struct{ net.Listener }

func (l listener) Close(context.Context) error { return l.Listener.Close() }

func listen(t *testing.T) func() (listener, error) {
	return func() (listener, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		return listener{ln}, err
	}
}

func TestASharedResourceLivesUntilItsLastHolderLetsGo(t *testing.T) {
	s := runtime.NewShared()
	ctx := context.Background()
	a, releaseA, err := runtime.Acquire(s, "tcp:test", listen(t))
	if err != nil {
		t.Fatal(err)
	}
	b, releaseB, err := runtime.Acquire(s, "tcp:test", func() (listener, error) {
		t.Fatal("a held resource was opened again")
		return listener{}, nil
	})
	if err != nil || a != b {
		t.Fatalf("the second holder got another resource: %v", err)
	}
	t.Run("the first release keeps it open", func(t *testing.T) {
		if err := releaseA(ctx); err != nil {
			t.Fatal(err)
		}
		_ = releaseA(ctx) // a second call does nothing
		if got := s.Keys(); !slices.Equal(got, []string{"tcp:test"}) {
			t.Fatalf("held %q", got)
		}
		conn, err := net.Dial("tcp", a.Addr().String())
		if err != nil {
			t.Fatalf("the port was let go: %v", err)
		}
		conn.Close()
	})
	t.Run("the last release closes it", func(t *testing.T) {
		if err := releaseB(ctx); err != nil {
			t.Fatal(err)
		}
		if len(s.Keys()) != 0 {
			t.Fatalf("held %q", s.Keys())
		}
		if _, err := a.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("the listener is open: %v", err)
		}
	})
}

func TestAKeyBeingClosedIsOpenedAnewOnlyOnceTheCloseReturns(t *testing.T) {
	s := runtime.NewShared()
	closing, finish := make(chan struct{}), make(chan struct{})
	_, release, err := runtime.Acquire(s, "k", func() (slow, error) { return slow{closing, finish}, nil })
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = release(context.Background()) }()
	<-closing
	opened := make(chan struct{})
	go func() {
		_, r, err := runtime.Acquire(s, "k", func() (slow, error) { close(opened); return slow{}, nil })
		if err == nil {
			_ = r(context.Background())
		}
	}()
	select {
	case <-opened:
		t.Fatal("opened again while the old one was closing")
	case <-time.After(50 * time.Millisecond): // a window for the wrong order to show; the right one waits on finish
	}
	close(finish)
	<-opened
}

// slow says when its Close begins and returns when told.
type slow struct{ closing, finish chan struct{} }

func (s slow) Close(context.Context) error {
	if s.closing != nil {
		close(s.closing)
		<-s.finish
	}
	return nil
}

func TestAFailedOpenHoldsNothing(t *testing.T) {
	s := runtime.NewShared()
	boom := errors.New("boom")
	if _, _, err := runtime.Acquire(s, "k", func() (listener, error) { return listener{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if len(s.Keys()) != 0 {
		t.Fatalf("held %q", s.Keys())
	}
	_, release, err := runtime.Acquire(s, "k", listen(t))
	if err != nil {
		t.Fatalf("the key stayed broken: %v", err)
	}
	_ = release(context.Background())
}

func TestAKeyHoldsOneKindOfResource(t *testing.T) {
	s := runtime.NewShared()
	_, release, err := runtime.Acquire(s, "k", listen(t))
	if err != nil {
		t.Fatal(err)
	}
	defer release(context.Background())
	if _, _, err := runtime.Acquire(s, "k", func() (slow, error) { return slow{}, nil }); err == nil {
		t.Fatal("a listener was handed out as another type")
	}
	if got := s.Keys(); !slices.Equal(got, []string{"k"}) {
		t.Fatalf("held %q", got)
	}
}

func TestALaterBuildOfTheSameUnitSucceedsAnEarlierOne(t *testing.T) {
	cases := []struct {
		name      string
		prev, cur runtime.Holder
		want      bool
	}{
		{"a later build of the unit", runtime.Holder{Unit: "u", Build: 1}, runtime.Holder{Unit: "u", Build: 2}, true},
		{"the same build", runtime.Holder{Unit: "u", Build: 2}, runtime.Holder{Unit: "u", Build: 2}, false},
		{"an earlier build", runtime.Holder{Unit: "u", Build: 2}, runtime.Holder{Unit: "u", Build: 1}, false},
		{"another unit", runtime.Holder{Unit: "u", Build: 1}, runtime.Holder{Unit: "v", Build: 2}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.cur.Succeeds(c.prev); got != c.want {
				t.Fatalf("got %v", got)
			}
		})
	}
}

// Held finds a resource another holder put in the table, and never opens one: a block asks for
// octo test's stub transport this way, and runs as usual when there is none.
func TestHeldFindsOnlyALiveResource(t *testing.T) {
	s := runtime.NewShared()
	ctx := context.Background()
	if _, _, ok := runtime.Held[listener](s, "tcp:test"); ok {
		t.Fatal("found a resource no one put there")
	}
	if len(s.Keys()) != 0 {
		t.Fatalf("asking opened %q", s.Keys())
	}
	put, releasePut, err := runtime.Acquire(s, "tcp:test", listen(t))
	if err != nil {
		t.Fatal(err)
	}
	got, release, ok := runtime.Held[listener](s, "tcp:test")
	if !ok || got != put {
		t.Fatal("did not find the live resource")
	}
	if _, _, ok := runtime.Held[*listener](s, "tcp:test"); ok {
		t.Fatal("found a resource of another type")
	}
	_ = releasePut(ctx)
	if len(s.Keys()) != 1 {
		t.Fatal("the second hold was not counted")
	}
	_ = release(ctx)
	if _, _, ok := runtime.Held[listener](s, "tcp:test"); ok || len(s.Keys()) != 0 {
		t.Fatal("the resource outlived its last holder")
	}
}

package nats_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/octo-run/octo/connectors/nats"
	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime"
)

// openCluster connects to the NATS server at url as service.cluster would.
func openCluster(tb testing.TB, url string) runtime.ClusterConn {
	tb.Helper()
	spec, ok := runtime.ClusterProvider()
	if !ok {
		tb.Fatal("no cluster provider")
	}
	s := &nats.ClusterSettings{Prefix: "t", Replicas: 1}
	s.URL, s.Timeout = url, 5*time.Second
	c, err := spec.Open(context.Background(), s, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// An item is taken by one taker, once; one whose taker fails is taken again, counted.
func TestAQueueItemIsTakenOnceOrAgainWhenItsWorkFails(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	ctx := context.Background()
	a, b := openCluster(t, ns.ClientURL()), openCluster(t, ns.ClientURL())
	qa, err := a.Queue(ctx, "jobs", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	qb, err := b.Queue(ctx, "jobs", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	type take struct {
		item     string
		delivery int
	}
	takes := make(chan take, 100)
	failOnce := map[string]bool{"flaky": true}
	fn := func(_ context.Context, item []byte, delivery int) error {
		takes <- take{string(item), delivery}
		if failOnce[string(item)] && delivery == 1 {
			return context.DeadlineExceeded // any error: taken again
		}
		return nil
	}
	for _, q := range []runtime.ClusterQueue{qa, qb} {
		stop, err := q.Take(ctx, 4, fn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	for _, item := range []string{"one", "two", "flaky"} {
		if err := qa.Put(ctx, []byte(item)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string][]int{}
	for deadline := time.After(10 * time.Second); len(got["one"])+len(got["two"])+len(got["flaky"]) < 4; {
		select {
		case tk := <-takes:
			got[tk.item] = append(got[tk.item], tk.delivery)
		case <-deadline:
			t.Fatalf("takes: %v", got)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if len(takes) != 0 || len(got["one"]) != 1 || len(got["two"]) != 1 || len(got["flaky"]) != 2 || got["flaky"][1] != 2 {
		t.Fatalf("takes: %v (and %d more)", got, len(takes))
	}
}

// BenchmarkQueueMessage is one item through a cluster's queue on an in-process NATS server:
// put, taken, settled.
func BenchmarkQueueMessage(b *testing.B) {
	ns := natstest.Start(b, natstest.Options{})
	ctx := context.Background()
	q, err := openCluster(b, ns.ClientURL()).Queue(ctx, "bench", 30*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	taken := make(chan struct{}, 1)
	stop, err := q.Take(ctx, 1, func(context.Context, []byte, int) error { taken <- struct{}{}; return nil })
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	for b.Loop() {
		if err := q.Put(ctx, []byte(`{}`)); err != nil {
			b.Fatal(err)
		}
		<-taken
	}
}

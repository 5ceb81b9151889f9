package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/octo-run/octo/connectors/nats/natstest"
)

// orderWorker is a service that takes the ORDERS stream's messages and tells each one done on
// done.<id>, through the same connection.
const orderWorker = `service: { name: orders }
env:
  - { name: NATS_URL }
connectors:
  - { name: bus, type: nats, settings: { url: "${NATS_URL}" } }
flows:
  - name: work
    source: { connector: bus, settings: { stream: ORDERS, ackWait: 2s, maxInFlight: 32 } }
    process:
      # A little work per message, so that every replica holds messages unacknowledged while
      # they flow, and the one killed surely leaves some to be taken over.
      - { type: delay, settings: { duration: 5ms } }
      - { type: nats-publish, settings: { connector: bus, subject: 'done.{{ body.id }}' } }
`

// TestEveryStreamMessageIsWorkedThoughAReplicaDies runs three octo processes on one durable
// consumer, sends 10,000 messages, kills one replica while they flow, and counts each message's
// work: every one is worked at least once, the killed replica's unacknowledged ones by the
// others once their acknowledgement wait ran out.
func TestEveryStreamMessageIsWorkedThoughAReplicaDies(t *testing.T) {
	const total = 10000
	ns := natstest.Start(t, natstest.Options{})
	nc := natstest.Connect(t, ns)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		works = map[string]int{}
	)
	if _, err := nc.Subscribe("done.*", func(m *natsgo.Msg) {
		mu.Lock()
		works[strings.TrimPrefix(m.Subject, "done.")]++
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "orders.yaml"), []byte(orderWorker), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"NATS_URL=" + ns.ClientURL()}
	ready := func(line string) bool { return strings.Contains(line, "connected to NATS") }
	replicas := []*proc{
		startOctoUntil(t, env, ready, "run", "--config", dir),
		startOctoUntil(t, env, ready, "run", "--config", dir),
		startOctoUntil(t, env, ready, "run", "--config", dir),
	}
	for i := range total {
		if _, err := js.PublishAsync(fmt.Sprintf("orders.%d", i), fmt.Appendf(nil, `{"id":"o%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(30 * time.Second):
		t.Fatal("the stream did not take the messages")
	}
	worked := func() (distinct, all int) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range works {
			all += n
		}
		return len(works), all
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if d, _ := worked(); d >= total/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the work did not start")
		}
	}
	_ = replicas[0].cmd.Process.Signal(syscall.SIGKILL) // mid-way, with messages in flight
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		d, all := worked()
		if d == total {
			cons, err := js.Consumer(ctx, "ORDERS", "orders-work")
			if err != nil {
				t.Fatal(err)
			}
			info, err := cons.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d messages worked, %d works in all (%d again); %d deliveries", d, all, all-d, info.Delivered.Consumer)
			if info.Delivered.Consumer <= total {
				t.Fatalf("%d deliveries of %d messages: the killed replica held none, so nothing was taken over", info.Delivered.Consumer, total)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages worked after a replica died", d, total)
		}
	}
}

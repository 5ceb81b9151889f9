package nats_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/octo-run/octo/connectors/nats/natstest"
)

// A bucket's watch goes on through a restart of the NATS server, and tells at once what was
// written after it.
func TestAWatchGoesOnThroughAServerRestart(t *testing.T) {
	dir := t.TempDir()
	ns := natstest.Start(t, natstest.Options{StoreDir: dir})
	port := ns.Addr().(*net.TCPAddr).Port
	ctx := context.Background()
	c := openCluster(t, ns.ClientURL())
	kv, err := c.KV(ctx, "w", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 16)
	stop, err := kv.Watch(ctx, ">", func(key string, value []byte) { seen <- key + "=" + string(value) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := kv.Create(ctx, "a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != "a=1" {
		t.Fatal(got)
	}
	ns.Shutdown()
	ns.WaitForShutdown()
	natstest.Start(t, natstest.Options{StoreDir: dir, Port: port})
	var put error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, put = kv.Create(ctx, "b", []byte("2")); put == nil || time.Now().After(deadline) {
			break
		}
	}
	if put != nil {
		t.Fatal(put)
	}
	start := time.Now()
	for {
		select {
		case got := <-seen:
			if got == "b=2" {
				t.Logf("told %v after the write", time.Since(start))
				if time.Since(start) > 3*time.Second {
					t.Fatalf("told only after %v", time.Since(start))
				}
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the watch never told the write after the restart")
		}
	}
}

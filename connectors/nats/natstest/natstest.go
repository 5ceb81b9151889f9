// Package natstest runs a real NATS server, JetStream on, inside a test process, on a loopback
// port the kernel picks: what the nats connector's, nats-publish's and the cluster's tests talk
// to. It is for tests only.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
)

// Options tune Start.
type Options struct {
	// User and Password, when set, are required of clients.
	User, Password string
	// Port and StoreDir, when set, are where it listens and keeps its streams: a server started
	// again with both is the one that stopped (0 and "": a free port, a folder of the test's).
	Port     int
	StoreDir string
	// NoJetStream runs a core NATS server only.
	NoJetStream bool
}

// Start runs a server until the test ends and returns it; ClientURL says where.
func Start(t testing.TB, o Options) *server.Server {
	t.Helper()
	if o.Port == 0 {
		o.Port = -1
	}
	if o.StoreDir == "" {
		o.StoreDir = t.TempDir()
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: o.Port, JetStream: !o.NoJetStream, StoreDir: o.StoreDir,
		NoSigs: true, NoLog: true, Username: o.User, Password: o.Password})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns
}

// Connect is a client of ns for the test's own use, closed when the test ends.
func Connect(t testing.TB, ns *server.Server, opts ...natsgo.Option) *natsgo.Conn {
	t.Helper()
	nc, err := natsgo.Connect(ns.ClientURL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

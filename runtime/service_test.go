package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// lifecycleLog records what was started and stopped.
var lifecycleLog struct {
	sync.Mutex
	events []string
}

func logEvent(e string) {
	lifecycleLog.Lock()
	defer lifecycleLog.Unlock()
	lifecycleLog.events = append(lifecycleLog.events, e)
}

type recordedConn struct{}

func (recordedConn) Attach(*runtime.SourceBuild, *runtime.Flow) error { return nil }
func (recordedConn) Start(context.Context) error                      { logEvent("connector started"); return nil }
func (recordedConn) Stop(context.Context) error                       { logEvent("connector stopped"); return nil }

type recordedBlock struct{}

func (recordedBlock) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	return m, nil
}
func (recordedBlock) Start(context.Context) error { logEvent("block started"); return nil }
func (recordedBlock) Stop(context.Context) error  { logEvent("block stopped"); return nil }

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{Type: "test-recorded", Summary: "test",
		Build: runtime.ConnectorFunc(func(*runtime.ConnectorBuild, *struct{}) (runtime.Connector, error) { return recordedConn{}, nil })})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-recorded", Summary: "test",
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return recordedBlock{}, nil })})
}

// StartBlocks starts the blocks and leaves the connectors alone: octo test serves a
// connector's handler itself, so a case binds no configured port and reads no stdin.
func TestStartBlocksLeavesTheConnectorsAlone(t *testing.T) {
	svc := buildYAML(t, "connectors:\n  - { name: c, type: test-recorded }\nflows:\n  - name: f\n    source: { connector: c }\n    process: [ { type: test-recorded } ]\n")
	lifecycleLog.events = nil
	if err := svc.StartBlocks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"block started", "block stopped"}; !slices.Equal(lifecycleLog.events, want) {
		t.Fatalf("events %q, want %q", lifecycleLog.events, want)
	}
}

// buildYAML builds a service from the config text yaml, written as a folder's one file.
func buildYAML(t testing.TB, yaml string) *runtime.Service {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// sessionConn serves a session of its own, as stdio does (Done). Its Stop is where the session's
// calls finish, so it notes whether another connector had stopped by then.
type sessionConn struct{ recordedConn }

func (sessionConn) Done() <-chan struct{}       { return nil }
func (sessionConn) Start(context.Context) error { logEvent("session started"); return nil }
func (sessionConn) Stop(context.Context) error {
	// Long enough for a connector stopped beside this one to have stopped.
	time.Sleep(50 * time.Millisecond)
	lifecycleLog.Lock()
	defer lifecycleLog.Unlock()
	if slices.Contains(lifecycleLog.events, "connector stopped") {
		lifecycleLog.events = append(lifecycleLog.events, "session stopped after the others")
	} else {
		lifecycleLog.events = append(lifecycleLog.events, "session stopped")
	}
	return nil
}

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{Type: "test-session", Summary: "test",
		Build: runtime.ConnectorFunc(func(*runtime.ConnectorBuild, *struct{}) (runtime.Connector, error) { return sessionConn{}, nil })})
}

// A stdio session's calls may use the config's other connectors (a tool calling an API flow
// over HTTP), so the session stops, and finishes its calls, before they do.
func TestStopFinishesASessionBeforeTheOtherConnectors(t *testing.T) {
	svc := buildYAML(t, `connectors:
  - { name: api, type: test-recorded }
  - { name: io, type: test-session }
flows:
  - { name: api, source: { connector: api }, process: [ { type: test-recorded } ] }
  - { name: mcp, source: { connector: io }, process: [ { type: test-recorded } ] }
`)
	lifecycleLog.events = nil
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	lifecycleLog.Lock()
	defer lifecycleLog.Unlock()
	if i, j := slices.Index(lifecycleLog.events, "session stopped"), slices.Index(lifecycleLog.events, "connector stopped"); i < 0 || j < i {
		t.Fatalf("events %q: the session must stop before the other connector", lifecycleLog.events)
	}
}

// A stdio session's first line may call an API flow of the same config, so the session starts
// after the other connectors listen, even when the config lists it first.
func TestStartOpensASessionAfterTheOtherConnectors(t *testing.T) {
	svc := buildYAML(t, `connectors:
  - { name: io, type: test-session }
  - { name: api, type: test-recorded }
flows:
  - { name: mcp, source: { connector: io }, process: [ { type: test-recorded } ] }
  - { name: api, source: { connector: api }, process: [ { type: test-recorded } ] }
`)
	lifecycleLog.events = nil
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(context.Background())
	lifecycleLog.Lock()
	defer lifecycleLog.Unlock()
	if i, j := slices.Index(lifecycleLog.events, "connector started"), slices.Index(lifecycleLog.events, "session started"); i < 0 || j < i {
		t.Fatalf("events %q: the session must start after the other connector", lifecycleLog.events)
	}
}

// addrConn listens somewhere once started, as the http connector does.
type addrConn struct {
	recordedConn
	addr *string
}

func (c addrConn) Start(context.Context) error {
	*c.addr = "127.0.0.1:4321"
	logEvent("connector started")
	return nil
}
func (c addrConn) Addr() string { return *c.addr }

// readyBlock notes, when the service serves, the address its source listens on.
type readyBlock struct {
	recordedBlock
	addr func() string
}

func (b readyBlock) Ready(context.Context) error { logEvent("ready at " + b.addr()); return nil }

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{Type: "test-addr", Summary: "test",
		Build: runtime.ConnectorFunc(func(*runtime.ConnectorBuild, *struct{}) (runtime.Connector, error) {
			return addrConn{addr: new(string)}, nil
		})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-ready", Summary: "test",
		Build: runtime.BlockFunc(func(b *runtime.Build, _ *struct{}) (runtime.Block, error) {
			return readyBlock{addr: b.SourceAddr()}, nil
		})})
}

// A block that tells where it can be reached hears so once its source's connector listens:
// Ready comes after every connector started, with the address bound.
func TestReadyComesOnceTheConnectorsListenWithTheSourcesAddress(t *testing.T) {
	svc := buildYAML(t, "connectors:\n  - { name: c, type: test-addr }\nflows:\n  - name: f\n    source: { connector: c }\n    process: [ { type: test-ready } ]\n")
	lifecycleLog.events = nil
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(context.Background())
	want := []string{"block started", "connector started", "ready at 127.0.0.1:4321"}
	if !slices.Equal(lifecycleLog.events, want) {
		t.Fatalf("events %q, want %q", lifecycleLog.events, want)
	}
	lifecycleLog.events = nil
	if err := svc.StartBlocks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(lifecycleLog.events, func(e string) bool { return e != "block started" }) {
		t.Fatalf("StartBlocks, which starts no connector, called Ready: %q", lifecycleLog.events)
	}
}

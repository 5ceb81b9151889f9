package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

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

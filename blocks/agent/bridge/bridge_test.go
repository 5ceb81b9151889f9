package bridge

import (
	"bytes"
	"encoding/json"
	"testing"

	_ "github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
)

// The embedded config of `octo mcp` builds, and hands the block the data folder exactly as
// given, whatever characters the path holds.
func TestTheEmbeddedConfigKeepsTheDataFolderAsGiven(t *testing.T) {
	for _, dir := range []string{"/home/ada/.local/share/octo", `C:\Users\Ada\AppData\Roaming\octo`,
		"/tmp/with \"quotes\", colons: and #hashes", "/tmp/tab\there/ünïcode/日本", "relative/dir"} {
		svc, err := runtime.NewService(embedded(dir), runtime.Options{})
		if err != nil {
			t.Fatalf("%q: %v", dir, err)
		}
		b, ok := svc.Instance("flows.agent.process[0]").(*Block)
		if !ok {
			t.Fatalf("%q: no agent-bridge at flows.agent.process[0]: %v", dir, svc.Instances())
		}
		if b.fwd.dir != dir {
			t.Errorf("data folder %q, want %q", b.fwd.dir, dir)
		}
	}
}

// Every line octo mcp writes to standard error starts with "octo mcp: ", however the writes
// are cut.
func TestEveryLineOnStandardErrorIsPrefixed(t *testing.T) {
	var buf bytes.Buffer
	p := &prefixed{w: &buf}
	for _, w := range []string{"level=WARN msg=one\n", "level=WARN msg=two\nlevel=WARN msg=three\n"} {
		if n, err := p.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	want := "octo mcp: level=WARN msg=one\nocto mcp: level=WARN msg=two\nocto mcp: level=WARN msg=three\n"
	if buf.String() != want {
		t.Fatalf("got %q", buf.String())
	}
}

// The app's result reaches the agent as the app wrote it: content, structuredContent verbatim
// (key order and number text kept), isError and _meta.
func TestTheAppsResultPassesThrough(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"ok"},{"type":"resource_link","uri":"octo://x","name":"x"}],` +
		`"structuredContent":{"z":1,"a":12345678901234567890},"isError":true,"_meta":{"k":"v"}}`
	res, err := decodeResult(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != raw {
		t.Fatalf("got  %s\nwant %s", got, raw)
	}
	if _, err := decodeResult(json.RawMessage(`{"content":"not a list"}`)); err == nil {
		t.Fatal("a result that is not a tool result was taken")
	}
}

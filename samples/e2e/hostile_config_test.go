package e2e

// Hostile config files: YAML alias bombs and cycles handed to `octo validate`
// and to a workspace under `octo serve`.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// textBomb is an inputSchema whose aliases stand for levels×10 copies of a
// 90 KB text: 4 levels are a 100 KB file that expands to 900 MB of JSON.
func textBomb(indent string, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sinputSchema:\n%s  type: object\n%s  $defs:\n", indent, indent, indent)
	fmt.Fprintf(&b, "%s    l0: &l0 %q\n", indent, strings.Repeat("ha", 45_000))
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "%s    l%d: &l%d [%s]\n", indent, i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// validate runs `octo validate --config path` to its end, within 10 s, and
// returns its exit code, its output and how far its peak resident memory rose
// above this test process's own, in MB. The kernel's figure for a child
// started with vfork (as Go starts them) is at least the parent's peak at the
// time, so that part is taken off: what is left is what octo added.
func validate(t *testing.T, path string) (code int, out string, peakMB int64) {
	t.Helper()
	own := int64(memKB(t, os.Getpid(), "VmHWM"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, octoBin, "validate", "--config", path)
	cmd.Dir = repoRoot()
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("octo validate did not end within 10s:\n%s", b)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peakMB = max(ru.Maxrss-own, 0) >> 10 // kB on Linux
	}
	return cmd.ProcessState.ExitCode(), string(b), peakMB
}

func TestValidateRefusesAliasBombsAndCyclesAtTheirLine(t *testing.T) {
	dir := t.TempDir()
	bomb := "connectors:\n  - { name: api, type: http, settings: { port: 0 } }\nflows:\n  - name: mock\n" +
		"    source: { connector: api, type: http, settings: { path: /mcp } }\n    process:\n" +
		"      - type: mcp-mock\n        settings:\n          tools:\n            - name: bomb\n              result: x\n" +
		textBomb("              ", 4)
	files := map[string]string{
		"bomb.yaml":  bomb,
		"cycle.yaml": "connectors:\n  - name: api\n    type: http\n    settings: &s { port: 0, more: [*s] }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ file, want string }{
		// Level 2 stands for 9.9 MB; the first alias of level 3 brings it past 16 MiB.
		{"bomb.yaml", "bomb.yaml:18:28: YAML aliases expand to more than 16 MiB of text; write the repeated parts out, or reuse less\n" +
			"    l3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n" +
			"             ^"},
		{"cycle.yaml", "cycle.yaml:4:36: connectors[0].settings.more[0] (connector \"api\"): alias *s is used inside the node it names, which would make it endless\n" +
			"    settings: &s { port: 0, more: [*s] }\n" +
			"                                   ^"},
	}
	for _, c := range cases {
		t.Run(c.file+" is refused with its line, in bounded memory", func(t *testing.T) {
			code, out, peak := validate(t, filepath.Join(dir, c.file))
			if code != 1 || strings.TrimRight(out, "\n") != filepath.Join(dir, c.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit 1 and:\n%s", code, out, filepath.Join(dir, c.want))
			}
			if peak > 100 {
				t.Fatalf("peak resident memory %d MB above the test's own; want under 100 MB", peak)
			}
			t.Logf("peak resident memory %d MB above the test's own (bound 100 MB)", peak)
		})
	}
	t.Run("an aliased router config builds", func(t *testing.T) {
		if code, out, _ := validate(t, "runtime/testdata/aliases/aliased.yaml"); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

// listTools connects to a mock server and returns its tool names.
func listTools(t *testing.T, url string) []string {
	t.Helper()
	return runtimetest.ToolNames(t, runtimetest.ConnectMCP(t, url, nil))
}

func TestServeKeepsTheLastGoodServerWhenItsFileBecomesAnAliasBomb(t *testing.T) {
	dir := t.TempDir()
	ports := [2]string{strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))}
	server := func(name, port, tools string) string {
		return "name: " + name + "\nkind: mcp\nport: " + port + "\nmcp:\n  tools:\n" + tools
	}
	files := map[string]string{
		"Steady.yaml": server("Steady", ports[0], "    - { name: steady, result: fine }\n"),
		"Target.yaml": server("Target", ports[1], "    - { name: before, result: fine }\n"),
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Join(dir, "servers"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "servers", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startOcto(t, nil, "serve", dir)
	waitLog(t, p, "serving server=Steady")
	waitLog(t, p, "serving server=Target")
	steady, target := "http://127.0.0.1:"+ports[0]+"/mcp", "http://127.0.0.1:"+ports[1]+"/mcp"
	if got := listTools(t, target); len(got) != 1 || got[0] != "before" {
		t.Fatalf("tools before the edit: %v", got)
	}

	bomb := server("Target", ports[1], "    - name: after\n      result: x\n"+textBomb("      ", 4))
	file := filepath.Join(dir, "servers", "Target.yaml")
	if err := os.WriteFile(file, []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	waitLog(t, p, file+`:14:20: YAML aliases expand to more than 16 MiB of text`)
	waitLog(t, p, `edit not applied; the last good version keeps serving server=Target`)

	if got := listTools(t, target); len(got) != 1 || got[0] != "before" {
		t.Errorf("the bombed server serves %v; want its last good version", got)
	}
	if got := listTools(t, steady); len(got) != 1 || got[0] != "steady" {
		t.Errorf("the other server serves %v", got)
	}
	assertPeakRSSUnder(t, p, 100)
}

func TestServeReadsNeitherLinksOutOfTheWorkspaceNorFIFOs(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("name: x\nkind: TOP-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	servers := filepath.Join(dir, "servers")
	port := strconv.Itoa(freePort(t))
	if err := os.MkdirAll(servers, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(servers, "Good.yaml"), []byte("name: Good\nport: "+port+"\nmcp:\n  tools: [ { name: good, result: fine } ]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(servers, "Leak.yaml")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(servers, "Pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOcto(t, nil, "serve", dir)
	waitLog(t, p, filepath.Join(servers, "Leak.yaml")+": a symbolic link that leads outside the workspace; it is not read")
	if got := listTools(t, "http://127.0.0.1:"+port+"/mcp"); len(got) != 1 || got[0] != "good" {
		t.Fatalf("tools %v", got)
	}
	if strings.Contains(p.Log(), "TOP-SECRET") || strings.Contains(p.Log(), "Pipe.yaml") {
		t.Fatalf("the log shows what it must not:\n%s", p.Log())
	}
}

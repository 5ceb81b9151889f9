package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// octo record over stdio, with the built binary: a client that starts `octo record WS NAME --
// octo serve samples/weather-mock "Weather mock" --stdio` speaks 2025-11-25 to it line by line
// and gets the server's own answers; what it saw is the saved server, which octo serve then
// replays over stdio with the same answer to the same call.
func TestRecordAStdioServerAndReplayIt(t *testing.T) {
	ws := t.TempDir()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}`,
	}
	recorded := stdioAnswers(t, lines, "record", ws, "Weather stdio", "--", octoBin, "serve",
		filepath.Join(repoRoot(), "samples", "weather-mock"), "Weather mock", "--stdio")
	if !strings.Contains(recorded[1], `"serverInfo":{"name":"Weather mock"`) || !strings.Contains(recorded[3], `\"city\": \"Oslo\"`) {
		t.Fatalf("through the recorder: %v", recorded)
	}
	text, err := os.ReadFile(filepath.Join(ws, "servers", "Weather stdio.yaml"))
	if err != nil || !strings.Contains(string(text), "serverName: Weather mock") || !strings.Contains(string(text), `args["city"] == "Oslo"`) {
		t.Fatalf("the recording: %v\n%s", err, text)
	}
	replayed := stdioAnswers(t, lines, "serve", ws, "Weather stdio", "--stdio")
	for id := 2; id <= 3; id++ {
		if replayed[id] != recorded[id] {
			t.Errorf("answer %d\nrecorded %s\nreplayed %s", id, recorded[id], replayed[id])
		}
	}
}

// stdioAnswers runs octo with args, writes lines to it, and returns its answers by id once it
// has answered every request (then its input ends).
func stdioAnswers(t *testing.T, lines []string, args ...string) map[int]string {
	t.Helper()
	cmd := exec.Command(octoBin, args...)
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got := make(chan [2]string, 16) // id, line
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(sc.Bytes(), &m) == nil && len(m.ID) > 0 {
				got <- [2]string{string(m.ID), sc.Text()}
			}
		}
	}()
	answers := map[int]string{}
	for _, l := range lines {
		_, _ = io.WriteString(in, l+"\n")
		var m struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(l), &m) != nil || len(m.ID) == 0 {
			continue // a notification: nothing to wait for
		}
		select { // as a client that waits for each answer before it asks again
		case a := <-got:
			id, _ := strconv.Atoi(a[0])
			answers[id] = a[1]
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("octo %v did not answer %s", args, l)
		}
	}
	_ = in.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("octo did not end when its input did")
	}
	_ = cmd.Wait()
	return answers
}

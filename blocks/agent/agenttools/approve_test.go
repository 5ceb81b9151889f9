package agenttools_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
)

// terminal answers the app's terminal prompt: each question it shows gets the next answer.
type terminal struct {
	mu        sync.Mutex
	questions []string
}

func (tm *terminal) asked() []string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]string(nil), tm.questions...)
}

// prompt is the app's terminal prompt, read and answered by tm.
func (tm *terminal) prompt(t *testing.T, answers ...string) *app.Prompt {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if !strings.Contains(sc.Text(), "asked by") {
				continue
			}
			tm.mu.Lock()
			tm.questions = append(tm.questions, sc.Text())
			tm.mu.Unlock()
			if len(answers) > 0 {
				io.WriteString(inW, answers[0]+"\n")
				answers = answers[1:]
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		outW.Close()
		<-done
	})
	return app.NewPrompt(inR, outW)
}

const oneTool = `{"name": "Weather mock", "kind": "mcp", "port": 0, "mcp": {"tools": [{"name": "a", "result": "b"}]}}`

func TestChangesWaitForTheUsersApproval(t *testing.T) {
	tm := &terminal{}
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveChanges}, app.Options{Approver: tm.prompt(t, "n", "y")}, nil)
	cs := connect(t, a, nil)
	file := filepath.Join(ws, "servers", "Weather mock.yaml")

	fails(t, cs, agenttools.SaveServer, rawArgs(oneTool), `The user declined this action (save_server "Weather mock" (new, 1 tool))`)
	if _, err := os.Stat(file); err == nil {
		t.Fatal("written though declined")
	}
	works(t, cs, agenttools.SaveServer, rawArgs(oneTool))
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("not written though approved: %v", err)
	}
	works(t, cs, agenttools.GetServer, map[string]any{"name": "Weather mock"}) // reads ask nothing
	want := `save_server "Weather mock" (new, 1 tool), asked by agent "test-agent"`
	if q := tm.asked(); len(q) != 2 || !strings.Contains(q[0], want) || !strings.Contains(q[1], want) {
		t.Fatalf("questions %q, want two saying %q", q, want)
	}
}

func TestWithNobodyToAskChangesAreRefusedAndReadsWork(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveChanges}, app.Options{},
		map[string]string{"servers/Weather mock.yaml": "name: Weather mock\nport: 0\n"})
	cs := connect(t, a, nil)
	fails(t, cs, agenttools.StartServer, map[string]any{"name": "Weather mock"}, app.ErrNobodyToAsk.Error())
	fails(t, cs, agenttools.DeleteServer, map[string]any{"name": "Weather mock"}, app.ErrNobodyToAsk.Error())
	if _, err := os.Stat(filepath.Join(ws, "servers", "Weather mock.yaml")); err != nil {
		t.Fatalf("deleted though refused: %v", err)
	}
	works(t, cs, agenttools.ListServers, map[string]any{})
}

func TestAgentsNotAllowedLearnNothing(t *testing.T) {
	a, _ := openApp(t, appdata.Agents{Approve: appdata.ApproveChanges}, app.Options{}, map[string]string{"servers/Secret plan.yaml": "name: Secret plan\nport: 0\n"})
	cs := connect(t, a, nil)
	for _, tool := range []string{agenttools.GetWorkspace, agenttools.ListServers} {
		if text := fails(t, cs, tool, map[string]any{}, app.ErrAgentsNotAllowed.Error()); strings.Contains(text, "Secret") {
			t.Fatalf("%s told %s", tool, text)
		}
	}
	if text := fails(t, cs, agenttools.SaveServer, rawArgs(oneTool), app.ErrAgentsNotAllowed.Error()); strings.Contains(text, "Secret") {
		t.Fatalf("save_server told %s", text)
	}
}

func TestHeadlessChangesAreRefused(t *testing.T) {
	a, _ := openApp(t, appdata.Agents{Allow: true, WithoutApp: true, Approve: appdata.ApproveChanges}, app.Options{Headless: true},
		map[string]string{"servers/Weather mock.yaml": "name: Weather mock\nport: 0\n"})
	cs := connect(t, a, nil)
	fails(t, cs, agenttools.StartServer, map[string]any{"name": "Weather mock"}, app.ErrHeadless.Error())
	works(t, cs, agenttools.GetServer, map[string]any{"name": "Weather mock"})
}

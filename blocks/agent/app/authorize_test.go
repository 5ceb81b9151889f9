package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
)

// terminal is a Prompt on a pipe: the test types the user's answers.
type terminal struct {
	in   *io.PipeWriter
	out  *syncBuffer
	seen int // the output up to here was answered
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTerminal(t *testing.T) (*terminal, *app.Prompt) {
	r, w := io.Pipe()
	term := &terminal{in: w, out: &syncBuffer{}}
	t.Cleanup(func() { w.Close() })
	return term, app.NewPrompt(r, term.out)
}

// answer waits for a new question that holds want, then types line.
func (term *terminal) answer(t *testing.T, want, line string) {
	t.Helper()
	waitFor(t, func() bool { return strings.Contains(term.out.String()[term.seen:], want) }, func() string { return "prompt: " + term.out.String() })
	term.seen = len(term.out.String())
	if _, err := io.WriteString(term.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

var save = agenttools.Action{Agent: "claude-code", Tool: "save_server", Changes: true, Summary: `save_server "Weather" (1 tool)`}

// authorize runs Authorize in the background.
func authorize(a *app.App, act agenttools.Action) <-chan error {
	done := make(chan error, 1)
	go func() { done <- a.Authorize(context.Background(), act) }()
	return done
}

func result(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Authorize did not return")
		return nil
	}
}

func TestTheFirstAgentCallAsksToAllowAgents(t *testing.T) {
	data := t.TempDir()
	term, prompt := newTerminal(t)
	a := open(t, app.Options{DataDir: data, Workspace: newWorkspace(t), Approver: prompt})
	list := agenttools.Action{Agent: "claude-code", Tool: "list_servers", Summary: "list_servers"}
	done := authorize(a, list)
	term.answer(t, `Allow AI agents to use Octo's tools? (first call: list_servers, from agent "claude-code")`, "n")
	if err := result(t, done); !errors.Is(err, app.ErrAgentsNotAllowed) {
		t.Fatalf("err = %v", err)
	}
	done = authorize(a, list)
	term.answer(t, "[y]es / [n]o? ", "y")
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
	if !appSettings(t, data).Agents.Allow {
		t.Fatal("allowing agents was not saved in settings.yaml")
	}
	if err := a.Authorize(context.Background(), list); err != nil {
		t.Fatalf("a read once agents are allowed: %v", err)
	}
}

// allowedApp is an app with agents allowed and approve set as given.
func allowedApp(t *testing.T, approve string, opts app.Options) *app.App {
	t.Helper()
	opts.DataDir = t.TempDir()
	if err := appdata.SaveSettings(opts.DataDir, appdata.Settings{Agents: appdata.Agents{Allow: true, Approve: approve}}); err != nil {
		t.Fatal(err)
	}
	opts.Workspace = newWorkspace(t)
	return open(t, opts)
}

func TestChangesWaitForTheUsersApproval(t *testing.T) {
	term, prompt := newTerminal(t)
	a := allowedApp(t, appdata.ApproveChanges, app.Options{Approver: prompt, ApprovalTimeout: time.Second})
	t.Run("reads never ask", func(t *testing.T) {
		if err := a.Authorize(context.Background(), agenttools.Action{Tool: "get_traffic"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("approved", func(t *testing.T) {
		done := authorize(a, save)
		term.answer(t, `save_server "Weather" (1 tool), asked by agent "claude-code"`, "y")
		if err := result(t, done); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("denied, after an answer that is none", func(t *testing.T) {
		done := authorize(a, save)
		term.answer(t, "[a]lways for save_server? ", "maybe")
		term.answer(t, "please answer y, n or a", "n")
		if err := result(t, done); err == nil || !strings.Contains(err.Error(), "The user declined this action (save_server") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no answer in time", func(t *testing.T) {
		err := a.Authorize(context.Background(), save)
		if err == nil || !strings.Contains(err.Error(), "did not answer within 1s") {
			t.Fatalf("err = %v", err)
		}
		term.seen = len(term.out.String())
	})
	t.Run("the agent cancels while the user has not answered", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Authorize(ctx, save) }()
		waitFor(t, func() bool { return strings.Contains(term.out.String()[term.seen:], "asked by") }, term.out.String)
		cancel()
		if err := result(t, done); err == nil || !strings.Contains(err.Error(), "cancelled before the user answered") {
			t.Fatalf("err = %v", err)
		}
		waitFor(t, func() bool { return strings.Contains(term.out.String()[term.seen:], "the agent cancelled its call") }, term.out.String)
		term.seen = len(term.out.String())
	})
	t.Run("always: later calls of that tool do not ask", func(t *testing.T) {
		done := authorize(a, save)
		term.answer(t, "[a]lways for save_server? ", "a")
		mark := len(term.out.String())
		if err := result(t, done); err != nil {
			t.Fatal(err)
		}
		if err := a.Authorize(context.Background(), save); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(term.out.String()[mark:], "asked by") {
			t.Fatalf("asked again:\n%s", term.out.String()[mark:])
		}
		err := a.Authorize(context.Background(), agenttools.Action{Tool: "delete_server", Changes: true, Summary: "delete_server X"})
		if err == nil {
			t.Fatal("approving save_server for good approved delete_server")
		}
	})
}

func TestWhenNobodyCanAnswer(t *testing.T) {
	t.Run("agents not allowed yet, and nobody to ask", func(t *testing.T) {
		a := open(t, app.Options{DataDir: t.TempDir(), Workspace: newWorkspace(t)})
		if err := a.Authorize(context.Background(), agenttools.Action{Tool: "list_servers"}); !errors.Is(err, app.ErrAgentsNotAllowed) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no terminal: the agent is told to have the user approve in Octo", func(t *testing.T) {
		a := allowedApp(t, appdata.ApproveChanges, app.Options{})
		if err := a.Authorize(context.Background(), save); !errors.Is(err, app.ErrNobodyToAsk) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("headless: every action that would ask is refused", func(t *testing.T) {
		a := allowedApp(t, appdata.ApproveChanges, app.Options{Headless: true})
		if err := a.Authorize(context.Background(), save); !errors.Is(err, app.ErrHeadless) {
			t.Fatalf("err = %v", err)
		}
		if err := a.Authorize(context.Background(), agenttools.Action{Tool: "list_servers"}); err != nil {
			t.Fatalf("a read: %v", err)
		}
	})
	t.Run("approve: never runs changes without asking", func(t *testing.T) {
		a := allowedApp(t, appdata.ApproveNever, app.Options{Headless: true})
		if err := a.Authorize(context.Background(), save); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a terminal whose input ended", func(t *testing.T) {
		r, w := io.Pipe()
		w.Close()
		a := allowedApp(t, appdata.ApproveChanges, app.Options{Approver: app.NewPrompt(r, io.Discard)})
		if err := a.Authorize(context.Background(), save); !errors.Is(err, app.ErrNobodyToAsk) {
			t.Fatalf("err = %v", err)
		}
	})
}

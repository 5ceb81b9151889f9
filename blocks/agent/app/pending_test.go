package app_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// waitWaiting returns the first question waiting in p.
func waitWaiting(t *testing.T, p *app.Pending) app.Waiting {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if w := p.Waiting(); len(w) > 0 {
			return w[0]
		}
		select {
		case <-p.Changed():
		case <-time.After(time.Second):
		}
	}
	t.Fatal("no question waits")
	return app.Waiting{}
}

// A question waits until it is answered; the answer is kept in the history; a question
// answered already or unknown is not answered again.
func TestPendingQuestionsWaitForTheirAnswer(t *testing.T) {
	p := app.NewPending()
	got := make(chan app.Answer, 1)
	go func() {
		ans, _ := p.Ask(context.Background(), app.Question{Agent: "a", Tool: "save_server", Summary: `save_server "X"`})
		got <- ans
	}()
	w := waitWaiting(t, p)
	if w.Question.Tool != "save_server" || w.Asked.IsZero() {
		t.Fatalf("waiting %+v", w)
	}
	if !p.Answer(w.ID, app.ApproveAlways) {
		t.Fatal("the answer did not reach the question")
	}
	if ans := <-got; ans != app.ApproveAlways {
		t.Fatalf("answered %v", ans)
	}
	if p.Answer(w.ID, app.Deny) || p.Answer(w.ID+1, app.Deny) {
		t.Fatal("a question was answered twice, or one never asked")
	}
	h := p.History()
	if len(h) != 1 || h[0].Outcome != "always" || len(p.Waiting()) != 0 {
		t.Fatalf("history %+v", h)
	}
}

// A question nobody answers in time is refused and recorded as timed out.
func TestAnUnansweredQuestionTimesOut(t *testing.T) {
	p := app.NewPending()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ans, err := p.Ask(ctx, app.Question{Tool: "delete_server"})
	if ans != app.Deny || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, %v", ans, err)
	}
	if h := p.History(); len(h) != 1 || h[0].Outcome != "timed out" || !h[0].Deadline.After(h[0].Asked) {
		t.Fatalf("history %+v", h)
	}
}

// Either asks the console and the terminal at once: the console's answer counts and the
// terminal is told so; a closed terminal leaves the console to answer.
func TestTheFirstAnswerCounts(t *testing.T) {
	p := app.NewPending()
	out := &runtimetest.Buffer{}
	in, typed := io.Pipe()
	t.Cleanup(func() { typed.Close() })
	either := app.Either(p, app.NewPrompt(in, out))
	got := make(chan app.Answer, 1)
	go func() {
		ans, _ := either.Ask(context.Background(), app.Question{Agent: "a", Tool: "start_server", Summary: `start_server "X"`})
		got <- ans
	}()
	p.Answer(waitWaiting(t, p).ID, app.Approve)
	if ans := <-got; ans != app.Approve {
		t.Fatalf("answered %v", ans)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "answered in the console"); {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal was not told: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	typed.Close() // the terminal's input ends: only the console answers from now on
	go func() {
		ans, _ := either.Ask(context.Background(), app.Question{Tool: "stop_server"})
		got <- ans
	}()
	p.Answer(waitWaiting(t, p).ID, app.Deny)
	if ans := <-got; ans != app.Deny {
		t.Fatalf("answered %v", ans)
	}
	if app.Either(nil, nil) != nil {
		t.Fatal("nobody to ask is not nil")
	}
}

// History says who answered: the terminal's answer to a question the console also shows is
// kept as the terminal's, the console's as the console's.
func TestHistorySaysWhoAnswered(t *testing.T) {
	p := app.NewPending()
	in, typed := io.Pipe()
	t.Cleanup(func() { typed.Close() })
	out := &runtimetest.Buffer{}
	either := app.Either(p, app.NewPrompt(in, out))
	got := make(chan app.Answer, 1)
	// ask asks in the background and returns the question once the console shows it.
	ask := func(summary string) app.Waiting {
		t.Helper()
		go func() {
			ans, _ := either.Ask(context.Background(), app.Question{Agent: "a", Tool: "start_server", Summary: summary})
			got <- ans
		}()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			for _, w := range p.Waiting() {
				if w.Question.Summary == summary {
					return w
				}
			}
		}
		t.Fatalf("%s is not waiting in the console", summary)
		return app.Waiting{}
	}
	answered := func() app.Answer {
		t.Helper()
		select {
		case ans := <-got:
			return ans
		case <-time.After(10 * time.Second):
			t.Fatal("the question was not answered")
			return app.Deny
		}
	}
	ask(`start_server "X"`)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "[y]es"); {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal was not asked: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := io.WriteString(typed, "y\n"); err != nil {
		t.Fatal(err)
	}
	if ans := answered(); ans != app.Approve {
		t.Fatalf("answered %v", ans)
	}
	w := ask(`start_server "Y"`)
	if !p.Answer(w.ID, app.Deny) {
		t.Fatal("the console's answer did not reach the question")
	}
	answered()
	for deadline := time.Now().Add(5 * time.Second); len(p.History()) < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	h := p.History()
	if len(h) != 2 || h[0].Outcome != "approved" || h[0].By != app.ByTerminal || h[1].Outcome != "denied" || h[1].By != app.ByConsole {
		t.Fatalf("history %+v", h)
	}
}

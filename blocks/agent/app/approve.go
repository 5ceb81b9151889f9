package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/octo-run/octo/runtime/printable"
)

// Approver puts the app's questions to the user: the console, or for now a terminal prompt.
type Approver interface {
	// Ask asks q and waits for the answer until ctx ends (the app's approval timeout).
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is what an agent's tool call needs the user to decide.
type Question struct {
	// AllowAgents asks to turn agents.allow on (the first agent call); otherwise the question
	// is whether the action may run.
	AllowAgents bool
	Agent       string   // the agent's clientInfo name
	Tool        string   // the kind of action: "always" approves every later call of it
	Summary     string   // one line: save_server "Weather mock" (3 tools)
	Detail      []string // more to judge by, a line each (agenttools.Action.Detail)
}

// Text is the question as one line for the user, safe to print on a terminal: the action first,
// then the agent's name, quoted and escaped (printable.Quote), last. The agent chose its name
// (clientInfo.name) and the action's names; neither may move, hide or rewrite what the user
// reads, and a name read last cannot pose as the action.
func (q Question) Text() string {
	agent := "an agent with no name"
	if q.Agent != "" {
		agent = "agent " + printable.Quote(q.Agent)
	}
	summary := printable.Escape(q.Summary) // built of quoted names: unchanged unless one was not
	if q.AllowAgents {
		return fmt.Sprintf("Allow AI agents to use Octo's tools? (first call: %s, from %s)", summary, agent)
	}
	return fmt.Sprintf("%s, asked by %s", summary, agent)
}

// Answer is the user's decision.
type Answer int

// The answers.
const (
	Deny Answer = iota
	Approve
	// ApproveAlways approves this call and, until the app stops, every later call of its tool.
	ApproveAlways
)

// Prompt is the terminal's Approver: it writes each question to out (stderr) and reads the
// answer, a line y, n or a (always for this kind of action), from in (the terminal). One
// question is asked at a time; a line typed while none is asked answers nothing.
type Prompt struct {
	in      io.Reader
	out     io.Writer
	lines   chan string // read from in by one goroutine, for as long as in gives lines
	reading sync.Once
	ask     sync.Mutex
}

// NewPrompt returns a prompt reading answers from in and writing questions to out. Nothing is
// read before the first question: an app started in the background of a shell is not stopped
// for reading its terminal (SIGTTIN) until it has something to ask.
func NewPrompt(in io.Reader, out io.Writer) *Prompt {
	return &Prompt{in: in, out: out, lines: make(chan string)}
}

// read hands in's lines over while a question waits for them; it ends with in.
func (p *Prompt) read(in io.Reader) {
	defer close(p.lines)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		p.lines <- sc.Text()
	}
}

// Name implements Approver's optional name: History says the terminal answered.
func (p *Prompt) Name() string { return ByTerminal }

// ErrNoAnswer is Ask's error when the terminal closed.
var ErrNoAnswer = errors.New("the terminal gives no answers (its input ended)")

// Ask implements Approver.
func (p *Prompt) Ask(ctx context.Context, q Question) (Answer, error) {
	p.ask.Lock()
	defer p.ask.Unlock()
	p.reading.Do(func() { go p.read(p.in) })
	p.drain()
	choices := "[y]es / [n]o / [a]lways for " + q.Tool
	if q.AllowAgents {
		choices = "[y]es / [n]o"
	}
	var detail strings.Builder
	for _, line := range q.Detail {
		detail.WriteString("    " + printable.Escape(line) + "\n")
	}
	fmt.Fprintf(p.out, "\nocto app: %s\n%s  %s? ", q.Text(), detail.String(), choices)
	for {
		select {
		case <-ctx.Done():
			why := "no answer in time; refused"
			switch {
			case errors.Is(context.Cause(ctx), ErrAnsweredElsewhere):
				why = context.Cause(ctx).Error()
			case errors.Is(ctx.Err(), context.Canceled):
				why = "the agent cancelled its call"
			}
			fmt.Fprintf(p.out, "\nocto app: %s.\n", why)
			return Deny, ctx.Err()
		case line, ok := <-p.lines:
			if !ok {
				return Deny, ErrNoAnswer
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return Approve, nil
			case "n", "no":
				return Deny, nil
			case "a", "always":
				if q.AllowAgents {
					return Approve, nil
				}
				return ApproveAlways, nil
			}
			fmt.Fprintf(p.out, "  please answer y, n or a: ")
		}
	}
}

// drain drops lines typed before the question was asked: they answer an earlier question
// that timed out, or none.
func (p *Prompt) drain() {
	for {
		select {
		case _, ok := <-p.lines:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

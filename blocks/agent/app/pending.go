package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Pending is the console's Approver: each question waits in a list until the user answers it
// in the console (Answer) or the app's approval timeout ends it. It keeps the last decisions
// for the console's history. Its methods are safe to call from several goroutines.
type Pending struct {
	mu      sync.Mutex
	next    uint64
	waiting map[uint64]*waiting
	history []Decision    // oldest first, at most maxHistory
	changed chan struct{} // closed and replaced on every change
}

// maxHistory bounds the decisions kept.
const maxHistory = 200

// Waiting is a question that waits for the user.
type Waiting struct {
	ID       uint64
	Question Question
	Asked    time.Time
	Deadline time.Time // when it is refused unanswered; zero when its context has none
}

// Decision is how a question ended: "approved", "always", "denied", "timed out" or
// "withdrawn" (the agent cancelled, or its connection ended), and By whom: "console" or
// "terminal" for an answer, "" otherwise.
type Decision struct {
	Waiting
	Outcome string
	By      string
	At      time.Time
}

// Who answers, as History names them.
const (
	ByConsole  = "console"
	ByTerminal = "terminal"
)

// outcomes name the answers in History.
var outcomes = map[Answer]string{Approve: "approved", ApproveAlways: "always", Deny: "denied"}

type waiting struct {
	Waiting
	answer chan Answer // buffered: Answer never blocks
}

// NewPending returns an empty list of questions.
func NewPending() *Pending {
	return &Pending{waiting: map[uint64]*waiting{}, changed: make(chan struct{})}
}

// ErrAnsweredElsewhere is the cause a question is cancelled with when another approver
// answered it first (Either); the cause is an *Answered, which says who and how.
var ErrAnsweredElsewhere = errors.New("answered elsewhere")

// Answered is the cause a question is cancelled with when another approver answered it.
type Answered struct {
	By     string
	Answer Answer
}

func (a *Answered) Error() string        { return "answered in the " + a.By }
func (a *Answered) Is(target error) bool { return target == ErrAnsweredElsewhere }

// Ask implements Approver: q waits until Answer or the end of ctx.
func (p *Pending) Ask(ctx context.Context, q Question) (Answer, error) {
	w := &waiting{answer: make(chan Answer, 1)}
	w.Question, w.Asked = q, time.Now()
	w.Deadline, _ = ctx.Deadline()
	p.mu.Lock()
	p.next++
	w.ID = p.next
	p.waiting[w.ID] = w
	p.changedLocked()
	p.mu.Unlock()
	select {
	case ans := <-w.answer:
		return ans, nil // Answer recorded the decision
	case <-ctx.Done():
		outcome, by := "withdrawn", "" // the agent cancelled its call, or left
		var elsewhere *Answered
		switch {
		case errors.As(context.Cause(ctx), &elsewhere):
			outcome, by = outcomes[elsewhere.Answer], elsewhere.By
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			outcome = "timed out"
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if _, still := p.waiting[w.ID]; !still { // answered at the same moment
			return <-w.answer, nil
		}
		p.decideLocked(w, outcome, by)
		return Deny, ctx.Err()
	}
}

// Answer answers the question id; it reports whether it was still waiting.
func (p *Pending) Answer(id uint64, ans Answer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.waiting[id]
	if w == nil {
		return false
	}
	p.decideLocked(w, outcomes[ans], ByConsole)
	w.answer <- ans
	return true
}

// Record adds to History an agent action that ran without a question, and why: every agent
// action shows there, not only those the user answered.
func (p *Pending) Record(q Question, outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	now := time.Now()
	p.decideLocked(&waiting{Waiting: Waiting{ID: p.next, Question: q, Asked: now}}, outcome, "")
}

// Name implements Approver's optional name: the console answers what waits here.
func (p *Pending) Name() string { return ByConsole }

func (p *Pending) decideLocked(w *waiting, outcome, by string) {
	delete(p.waiting, w.ID)
	p.history = append(p.history, Decision{Waiting: w.Waiting, Outcome: outcome, By: by, At: time.Now()})
	if n := len(p.history) - maxHistory; n > 0 {
		p.history = slices.Delete(p.history, 0, n)
	}
	p.changedLocked()
}

func (p *Pending) changedLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Waiting lists the questions waiting now, the oldest first.
func (p *Pending) Waiting() []Waiting {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Waiting, 0, len(p.waiting))
	for _, w := range p.waiting {
		out = append(out, w.Waiting)
	}
	slices.SortFunc(out, func(x, y Waiting) int { return int(x.ID) - int(y.ID) })
	return out
}

// History lists the last decisions, the oldest first.
func (p *Pending) History() []Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.history)
}

// Changed is closed at the next change of the questions or decisions.
func (p *Pending) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// Either asks every approver at once (those not nil) and takes the first answer; the others
// are cancelled with the cause ErrAnsweredElsewhere.
func Either(approvers ...Approver) Approver {
	var on []Approver
	for _, a := range approvers {
		if a != nil && !isNilPrompt(a) {
			on = append(on, a)
		}
	}
	switch len(on) {
	case 0:
		return nil
	case 1:
		return on[0]
	}
	return either(on)
}

func isNilPrompt(a Approver) bool { p, ok := a.(*Prompt); return ok && p == nil }

type either []Approver

type reply struct {
	ans Answer
	err error
	by  string
}

func (e either) Ask(ctx context.Context, q Question) (Answer, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	replies := make(chan reply, len(e))
	for _, a := range e {
		go func() {
			ans, err := a.Ask(ctx, q)
			replies <- reply{ans, err, nameOf(a)}
		}()
	}
	var last reply
	for range e {
		last = <-replies
		if last.err == nil {
			// The others hear who answered, so the console's history says so.
			cancel(&Answered{By: last.by, Answer: last.ans})
			return last.ans, nil
		}
		if ctx.Err() != nil {
			cancel(nil)
			return last.ans, last.err
		}
		// this approver cannot answer (a closed terminal): wait for the others
	}
	cancel(nil)
	return last.ans, last.err
}

// nameOf is who an approver is in the console's history: its Name, if it has one.
func nameOf(a Approver) string {
	if n, ok := a.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

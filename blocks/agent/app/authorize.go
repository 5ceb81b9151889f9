package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
)

// What agents are told when the user's answer stops them (the error's text is the tool's).
var (
	ErrAgentsNotAllowed = errors.New("The user has not allowed AI agents to use Octo. Ask the user to allow agents in Octo " +
		"(octo app --allow-agents), then try again.")
	ErrHeadless = errors.New("Octo's app is not open, so this action, which needs the user's approval, cannot run. " +
		"Ask the user to open Octo (octo app) and try again.")
	ErrNobodyToAsk = errors.New("This action needs the user's approval in Octo, and Octo has no terminal or console to ask in. " +
		"Ask the user to approve it in Octo (run octo app in a terminal), then try again.")
)

// Authorize implements agenttools.Host: agents must be allowed (agents.allow; the first call
// asks the user to turn it on), and with agents.approve: changes an action that changes
// something waits for the user's approval, unless the user approved its tool for good.
func (a *App) Authorize(ctx context.Context, act agenttools.Action) error {
	if err := a.allowed(ctx, act); err != nil {
		return err
	}
	q := Question{Agent: act.Agent, Tool: act.Tool, Summary: act.Summary, Detail: act.Detail}
	switch {
	case !act.Changes:
		a.record(q, "not asked: changes nothing")
		return nil
	case a.Settings().Agents.Approve == appdata.ApproveNever:
		a.record(q, "not asked: approve is never")
		return nil
	case a.approvedForGood(act.Tool):
		a.record(q, "not asked: always allowed")
		return nil
	}
	ans, err := a.ask(ctx, q)
	if err != nil {
		return err
	}
	switch ans {
	case ApproveAlways:
		a.mu.Lock()
		a.always[act.Tool] = true
		a.mu.Unlock()
		return nil
	case Approve:
		return nil
	}
	return fmt.Errorf("The user declined this action (%s). Do not try it again unless the user asks you to.", act.Summary)
}

// allowed checks agents.allow, asking the user to turn it on when it is off.
func (a *App) allowed(ctx context.Context, act agenttools.Action) error {
	if a.Settings().Agents.Allow {
		return nil
	}
	a.asking.Lock() // calls arriving together get one question
	defer a.asking.Unlock()
	if a.Settings().Agents.Allow {
		return nil
	}
	ans, err := a.ask(ctx, Question{AllowAgents: true, Agent: act.Agent, Tool: act.Tool, Summary: act.Summary})
	if errors.Is(err, ErrNobodyToAsk) || errors.Is(err, ErrHeadless) {
		return ErrAgentsNotAllowed // what the agent can do about it is the same
	}
	if err != nil {
		return err
	}
	if ans == Deny {
		return ErrAgentsNotAllowed
	}
	if err := a.UpdateSettings(func(s *appdata.Settings) { s.Agents.Allow = true }); err != nil {
		a.log.Error("agents allowed for this run only: settings not saved: " + err.Error())
	}
	return nil
}

// record notes an action that ran without asking in the console's History.
func (a *App) record(q Question, outcome string) {
	if a.opts.Pending != nil {
		a.opts.Pending.Record(q, outcome)
	}
}

func (a *App) approvedForGood(tool string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.always[tool]
}

// ask puts q to the user within the approval timeout; the errors are what the agent is told.
func (a *App) ask(ctx context.Context, q Question) (Answer, error) {
	if a.opts.Headless {
		return Deny, ErrHeadless
	}
	if a.opts.Approver == nil {
		return Deny, ErrNobodyToAsk
	}
	a.log.Debug("asking the user", "agent", q.Agent, "action", q.Summary)
	ctx, cancel := context.WithTimeout(ctx, a.opts.ApprovalTimeout)
	defer cancel()
	ans, err := a.opts.Approver.Ask(ctx, q)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Deny, fmt.Errorf("The user did not answer within %s, so nothing was done. "+
			"Ask the user to watch Octo and approve it, then try again.", a.opts.ApprovalTimeout)
	case errors.Is(err, context.Canceled):
		return Deny, errors.New("The call was cancelled before the user answered; nothing was done.")
	case errors.Is(err, ErrNoAnswer):
		return Deny, ErrNobodyToAsk
	case err != nil:
		return Deny, err
	}
	return ans, nil
}

package agenttools

import (
	"context"
	"fmt"
	"time"

	"github.com/octo-run/octo/mcp"
)

// trafficArgs are get_traffic's arguments.
type trafficArgs struct {
	Server  string `json:"server"`
	Session string `json:"session"`
	Method  string `json:"method"`
	Since   string `json:"since"`
	Limit   int    `json:"limit"`
}

// trafficView is get_traffic's answer.
type trafficView struct {
	Entries []TrafficEntry `json:"entries"`
	Note    string         `json:"note,omitempty"`
}

func (t *Tools) getTraffic(c Call) (op, error) {
	var a trafficArgs
	if err := decode(c.Args, &a); err != nil {
		return op{}, err
	}
	q := TrafficQuery{Server: a.Server, Session: a.Session, Method: a.Method, Limit: a.Limit}
	if a.Since != "" {
		since, err := time.Parse(time.RFC3339Nano, a.Since)
		if err != nil {
			return op{}, argError("since", "%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", a.Since)
		}
		q.Since = since
	}
	if q.Limit == 0 {
		q.Limit = DefaultTrafficLimit
	}
	summary := GetTraffic
	if a.Server != "" {
		summary += fmt.Sprintf(" of %q", a.Server)
	}
	return op{summary: summary, run: func(context.Context) *mcp.CallToolResult {
		v := trafficView{Entries: t.host.Traffic(q)}
		if v.Entries == nil {
			v.Entries = []TrafficEntry{}
		}
		switch {
		case len(v.Entries) >= q.Limit:
			v.Note = fmt.Sprintf("There may be more: this is the limit of %d. Ask again with since set to the last entry's time to read on.", q.Limit)
		case len(v.Entries) == 0 && a.Server != "":
			if _, err := t.find(a.Server); err != nil {
				v.Note = err.Error()
			}
		}
		return jsonResult(v)
	}}, nil
}

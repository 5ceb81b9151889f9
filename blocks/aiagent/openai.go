package aiagent

import (
	"encoding/json"
	"errors"
	"net/http"
)

// openAI speaks chat completions (POST {base}/chat/completions).
type openAI struct{ base, key string }

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (p openAI) request(c chat) (string, http.Header, any) {
	h := http.Header{}
	if p.key != "" {
		h.Set("Authorization", "Bearer "+p.key)
	}
	var msgs []oaMessage
	if c.system != "" {
		msgs = append(msgs, oaMessage{Role: "system", Content: &c.system})
	}
	for _, t := range c.turns {
		msgs = append(msgs, oaMessages(t)...)
	}
	body := map[string]any{"model": c.model, "messages": msgs, "max_tokens": c.maxTokens}
	if len(c.tools) > 0 {
		var tools []any
		for _, t := range c.tools {
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
				"name": t.name, "description": t.description, "parameters": t.schema}})
		}
		body["tools"] = tools
	}
	return p.base + "/chat/completions", h, body
}

func oaMessages(t turn) []oaMessage {
	switch t.Role {
	case "tool":
		var out []oaMessage
		for _, r := range t.Results {
			text := r.Text
			out = append(out, oaMessage{Role: "tool", Content: &text, ToolCallID: r.ID})
		}
		return out
	case "assistant":
		m := oaMessage{Role: "assistant"}
		if t.Text != "" {
			m.Content = &t.Text
		}
		for _, c := range t.Calls {
			tc := oaToolCall{ID: c.ID, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = c.Name, string(c.Args)
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		return []oaMessage{m}
	}
	return []oaMessage{{Role: "user", Content: &t.Text}}
}

func (openAI) answer(body []byte) (turn, error) {
	var res struct {
		Choices []struct {
			Message oaMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return turn{}, err
	}
	if len(res.Choices) == 0 {
		return turn{}, errors.New("no choices")
	}
	m := res.Choices[0].Message
	t := turn{Role: "assistant"}
	if m.Content != nil {
		t.Text = *m.Content
	}
	for _, c := range m.ToolCalls {
		t.Calls = append(t.Calls, toolCall{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
	}
	return t, nil
}

package aiagent

import (
	"encoding/json"
	"net/http"
)

// anthropic speaks the messages API (POST {base}/messages).
type anthropic struct{ base, key string }

// anthropicVersion is the API version the requests are written for.
const anthropicVersion = "2023-06-01"

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type antMessage struct {
	Role    string     `json:"role"`
	Content []antBlock `json:"content"`
}

func (p anthropic) request(c chat) (string, http.Header, any) {
	h := http.Header{}
	h.Set("anthropic-version", anthropicVersion)
	if p.key != "" {
		h.Set("x-api-key", p.key)
	}
	var msgs []antMessage
	for _, t := range c.turns {
		msgs = append(msgs, antMessageOf(t))
	}
	body := map[string]any{"model": c.model, "max_tokens": c.maxTokens, "messages": msgs}
	if c.system != "" {
		body["system"] = c.system
	}
	if len(c.tools) > 0 {
		var tools []any
		for _, t := range c.tools {
			tools = append(tools, map[string]any{"name": t.name, "description": t.description, "input_schema": t.schema})
		}
		body["tools"] = tools
	}
	return p.base + "/messages", h, body
}

func antMessageOf(t turn) antMessage {
	switch t.Role {
	case "tool":
		m := antMessage{Role: "user"}
		for _, r := range t.Results {
			m.Content = append(m.Content, antBlock{Type: "tool_result", ToolUseID: r.ID, Content: r.Text, IsError: r.IsError})
		}
		return m
	case "assistant":
		m := antMessage{Role: "assistant"}
		if t.Text != "" {
			m.Content = append(m.Content, antBlock{Type: "text", Text: t.Text})
		}
		for _, c := range t.Calls {
			input := c.Args
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			m.Content = append(m.Content, antBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
		}
		return m
	}
	return antMessage{Role: "user", Content: []antBlock{{Type: "text", Text: t.Text}}}
}

func (anthropic) answer(body []byte) (turn, error) {
	var res struct {
		Content []antBlock `json:"content"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return turn{}, err
	}
	t := turn{Role: "assistant"}
	for _, b := range res.Content {
		switch b.Type {
		case "text":
			t.Text += b.Text
		case "tool_use":
			t.Calls = append(t.Calls, toolCall{ID: b.ID, Name: b.Name, Args: b.Input})
		}
	}
	return t, nil
}

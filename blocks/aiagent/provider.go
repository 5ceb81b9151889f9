package aiagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/octo-run/octo/runtime"
)

// turn is one message of the conversation, in no provider's format: the user's prompt, the
// model's answer (text and tool calls), or the results of those calls.
type turn struct {
	Role    string       `json:"role"` // user, assistant or tool
	Text    string       `json:"text,omitempty"`
	Calls   []toolCall   `json:"toolCalls,omitempty"`
	Results []toolResult `json:"toolResults,omitempty"`
}

type toolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

type toolResult struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
}

// chat is one request to the model.
type chat struct {
	model     string
	system    string
	maxTokens int
	turns     []turn
	tools     []*tool
}

// provider turns a chat into an HTTP request and the answer into the model's turn.
type provider interface {
	request(c chat) (path string, header http.Header, body any)
	answer(body []byte) (turn, error)
}

func buildProvider(b *runtime.Build, s *Settings) provider {
	base := s.BaseURL
	var p provider
	switch s.Provider {
	case "anthropic":
		if base == "" {
			base = "https://api.anthropic.com/v1"
		}
		p = anthropic{base: base, key: s.APIKey}
	default:
		if base == "" {
			base = "https://api.openai.com/v1"
		}
		p = openAI{base: base, key: s.APIKey}
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		b.Errorf(&s.BaseURL, "baseUrl %q: expected an absolute http or https URL", base)
	}
	return p
}

// maxAnswerBytes bounds a model's answer.
const maxAnswerBytes = 16 << 20

// ask sends one chat to the model within the block's timeout and returns its turn.
func (blk *Block) ask(caller context.Context, c chat) (t turn, err error) {
	ctx, cancel := context.WithTimeout(caller, blk.timeout)
	defer cancel()
	if runtime.Tracing() { // a client span per model call, as the GenAI conventions name it
		var span runtime.Span
		ctx, span = runtime.StartSpan(ctx, "chat "+blk.model, runtime.SpanClient,
			runtime.Attr{Key: "gen_ai.operation.name", Value: "chat"}, runtime.Attr{Key: "gen_ai.request.model", Value: blk.model})
		defer func() { span.End(err) }()
	}
	path, header, body := blk.provider.request(c)
	data, err := json.Marshal(body)
	if err != nil {
		return turn{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(data))
	if err != nil {
		return turn{}, err
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	runtime.InjectTrace(ctx, req.Header.Set)
	resp, err := blk.hc.Do(req)
	if err != nil {
		if caller.Err() != nil {
			return turn{}, caller.Err()
		}
		return turn{}, blk.modelFailed(ctx, "could not be reached", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return turn{}, blk.modelFailed(ctx, "answer could not be read", err)
	}
	if resp.StatusCode != http.StatusOK {
		return turn{}, &runtime.Error{Kind: runtime.KindUpstream, Msg: fmt.Sprintf("the model's API answered HTTP %d", resp.StatusCode),
			Err: fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, excerpt(answer))}
	}
	if len(answer) > maxAnswerBytes {
		return turn{}, runtime.Errorf(runtime.KindUpstream, "the model's answer is over %d bytes", maxAnswerBytes)
	}
	t, err = blk.provider.answer(answer)
	if err != nil {
		return turn{}, &runtime.Error{Kind: runtime.KindUpstream, Msg: "the model's answer could not be read",
			Err: fmt.Errorf("POST %s: %w: %s", path, err, excerpt(answer))}
	}
	return t, nil
}

func (blk *Block) modelFailed(ctx context.Context, what string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &runtime.Error{Kind: runtime.KindTimeout, Msg: fmt.Sprintf("the model did not answer within %s", blk.timeout), Err: err}
	}
	return &runtime.Error{Kind: runtime.KindUpstream, Msg: "the model's API " + what, Err: err}
}

func excerpt(b []byte) string {
	if len(b) > 512 {
		b = b[:512]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/runtime/jsonv"
	"github.com/octo-run/octo/runtime/reference"
)

// The saved file, as the mcp-mock block reads it.
type (
	savedFile struct {
		Name string      `yaml:"name"`
		Kind string      `yaml:"kind"`
		Port int         `yaml:"port"`
		MCP  savedServer `yaml:"mcp"`
	}
	savedServer struct {
		ServerName   string          `yaml:"serverName,omitempty"`
		Version      string          `yaml:"version,omitempty"`
		Instructions string          `yaml:"instructions,omitempty"`
		Tools        []savedTool     `yaml:"tools,omitempty"`
		Resources    []savedResource `yaml:"resources,omitempty"`
		Prompts      []savedPrompt   `yaml:"prompts,omitempty"`
	}
	savedAnswer struct {
		When          string         `yaml:"when,omitempty"`
		Result        *string        `yaml:"result,omitempty"`
		Content       []savedContent `yaml:"content,omitempty"`
		IsError       bool           `yaml:"isError,omitempty"`
		ProtocolError *savedError    `yaml:"protocolError,omitempty"`
	}
	savedTool struct {
		Name         string         `yaml:"name"`
		Title        string         `yaml:"title,omitempty"`
		Description  string         `yaml:"description,omitempty"`
		InputSchema  string         `yaml:"inputSchema,omitempty"`
		OutputSchema string         `yaml:"outputSchema,omitempty"`
		Annotations  map[string]any `yaml:"annotations,omitempty"`
		savedAnswer  `yaml:",inline"`
		Answers      []savedAnswer `yaml:"answers,omitempty"`
	}
	savedError struct {
		Code    int    `yaml:"code"`
		Message string `yaml:"message"`
	}
	savedContent struct {
		Text         *string        `yaml:"text,omitempty"`
		Image        string         `yaml:"image,omitempty"`
		Audio        string         `yaml:"audio,omitempty"`
		MimeType     string         `yaml:"mimeType,omitempty"`
		Resource     *savedEmbedded `yaml:"resource,omitempty"`
		ResourceLink map[string]any `yaml:"resourceLink,omitempty"`
	}
	savedEmbedded struct {
		URI      string  `yaml:"uri"`
		MimeType string  `yaml:"mimeType,omitempty"`
		Text     *string `yaml:"text,omitempty"`
		Blob     *string `yaml:"blob,omitempty"`
	}
	savedResource struct {
		URI         string  `yaml:"uri"`
		Name        string  `yaml:"name"`
		Title       string  `yaml:"title,omitempty"`
		Description string  `yaml:"description,omitempty"`
		MimeType    string  `yaml:"mimeType,omitempty"`
		Text        *string `yaml:"text,omitempty"`
		Blob        *string `yaml:"blob,omitempty"`
	}
	savedPrompt struct {
		Name        string           `yaml:"name"`
		Title       string           `yaml:"title,omitempty"`
		Description string           `yaml:"description,omitempty"`
		Args        []map[string]any `yaml:"arguments,omitempty"`
		Messages    []savedMessage   `yaml:"messages"`
	}
	savedMessage struct {
		Role         string `yaml:"role"`
		savedContent `yaml:",inline"`
	}
)

// notRecorded stands where the recording saw no answer.
const notRecorded = "octo record saw no answer to this; edit the saved file to give one"

// text writes a text the server sent so that the mock answers it as sent: a {{ is literal, and
// a secret variable's value becomes its tag.
func (w *writer) text(s string) *string {
	t := placeholder.Literal(s)
	for _, sec := range w.secrets {
		t = strings.ReplaceAll(t, sec.value, "{{"+sec.name+"}}")
	}
	return &t
}

// writer renders a recording as a saved file.
type writer struct {
	secrets []secret
}

// secret is a secret workspace variable whose value is replaced by its tag.
type secret struct{ name, value string }

// file renders the recording as the saved server name on port.
func (w *writer) file(r *Recording, name string, port int) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := savedFile{Name: name, Kind: workspace.KindMCP, Port: port, MCP: savedServer{
		ServerName: r.name, Version: r.version, Instructions: r.instructions}}
	if f.MCP.Instructions != "" {
		f.MCP.Instructions = *w.text(f.MCP.Instructions)
	}
	for _, t := range r.tools {
		f.MCP.Tools = append(f.MCP.Tools, w.tool(t))
	}
	for _, rs := range r.resources {
		f.MCP.Resources = append(f.MCP.Resources, w.resource(rs, "uri"))
	}
	for _, rs := range r.templates {
		f.MCP.Resources = append(f.MCP.Resources, w.resource(rs, "uriTemplate"))
	}
	for _, p := range r.prompts {
		f.MCP.Prompts = append(f.MCP.Prompts, w.prompt(p))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# yaml-language-server: $schema=../%s\n", reference.SchemaFile(workspace.ServerSchema))
	b.WriteString("# Recorded by `octo record`: what the server listed, and each answer by the arguments that got it\n" +
		"# (an answer's when). `octo serve` replays it; edit it as you like.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

func (w *writer) tool(t *toolSeen) savedTool {
	st := savedTool{Name: str(t.def["name"]), Title: str(t.def["title"]), Description: str(t.def["description"])}
	if s := t.def["inputSchema"]; len(s) > 0 {
		st.InputSchema = compact(s) // in its own key order: the mock lists a schema as written
	}
	if s := t.def["outputSchema"]; len(s) > 0 {
		st.OutputSchema = compact(s)
	}
	_ = json.Unmarshal(t.def["annotations"], &st.Annotations)
	if len(t.calls) == 0 {
		st.savedAnswer = savedAnswer{Result: w.text(notRecorded), IsError: true}
		return st
	}
	// The last call's answer is the tool's own, for arguments never seen; each call's answer
	// is picked by its arguments.
	st.savedAnswer = w.answer(t.calls[len(t.calls)-1], st.OutputSchema != "")
	for _, c := range t.calls {
		a := w.answer(c, st.OutputSchema != "")
		a.When = when(c.args)
		st.Answers = append(st.Answers, a)
	}
	return st
}

// answer is how the mock says what one call got.
func (w *writer) answer(c call, structured bool) savedAnswer {
	if c.err != nil {
		return savedAnswer{ProtocolError: &savedError{Code: c.err.Code, Message: c.err.Message}}
	}
	var res struct {
		Content           []map[string]json.RawMessage
		StructuredContent json.RawMessage
		IsError           bool
	}
	_ = json.Unmarshal(c.result, &res)
	a := savedAnswer{IsError: res.IsError}
	oneText := len(res.Content) == 1 && str(res.Content[0]["type"]) == "text"
	switch {
	case structured && len(res.StructuredContent) > 0 && !res.IsError:
		// The mock sends its result as the text and, parsed, as structuredContent: the text
		// as it was when it is that JSON.
		text := compact(res.StructuredContent)
		if oneText && jsonv.Valid([]byte(str(res.Content[0]["text"]))) {
			text = str(res.Content[0]["text"])
		}
		a.Result = w.text(text)
	case oneText:
		a.Result = w.text(str(res.Content[0]["text"]))
	default:
		for _, item := range res.Content {
			a.Content = append(a.Content, w.content(item))
		}
		if len(a.Content) == 0 {
			a.Result = w.text("")
		}
	}
	return a
}

// content is one content item as sent.
func (w *writer) content(item map[string]json.RawMessage) savedContent {
	switch str(item["type"]) {
	case "image":
		return savedContent{Image: str(item["data"]), MimeType: str(item["mimeType"])}
	case "audio":
		return savedContent{Audio: str(item["data"]), MimeType: str(item["mimeType"])}
	case "resource":
		var r map[string]json.RawMessage
		_ = json.Unmarshal(item["resource"], &r)
		e := &savedEmbedded{URI: *w.text(str(r["uri"])), MimeType: str(r["mimeType"])}
		if b, ok := r["blob"]; ok {
			blob := str(b)
			e.Blob = &blob
		} else {
			e.Text = w.text(str(r["text"]))
		}
		return savedContent{Resource: e}
	case "resource_link":
		link := map[string]any{"uri": *w.text(str(item["uri"])), "name": str(item["name"])}
		for _, k := range []string{"description", "mimeType", "title"} {
			if v := str(item[k]); v != "" {
				link[k] = v
			}
		}
		return savedContent{ResourceLink: link}
	}
	return savedContent{Text: w.text(str(item["text"]))}
}

func (w *writer) resource(rs *resourceSeen, uriKey string) savedResource {
	s := savedResource{URI: str(rs.def[uriKey]), Name: str(rs.def["name"]), Title: str(rs.def["title"]),
		Description: str(rs.def["description"]), MimeType: str(rs.def["mimeType"])}
	if uriKey == "uriTemplate" { // its parts are read as {{params.x}}: the text is the template's
		s.Text = w.text(notRecorded)
		return s
	}
	var c map[string]json.RawMessage
	_ = json.Unmarshal(rs.contents, &c)
	switch {
	case c == nil:
		s.Text = w.text(notRecorded)
	case c["blob"] != nil:
		blob := str(c["blob"])
		s.Blob = &blob
	default:
		s.Text = w.text(str(c["text"]))
	}
	return s
}

func (w *writer) prompt(p *promptSeen) savedPrompt {
	sp := savedPrompt{Name: str(p.def["name"]), Title: str(p.def["title"]), Description: str(p.def["description"])}
	_ = json.Unmarshal(p.def["arguments"], &sp.Args)
	var msgs []struct {
		Role    string
		Content map[string]json.RawMessage
	}
	_ = json.Unmarshal(p.messages, &msgs)
	for _, m := range msgs {
		sp.Messages = append(sp.Messages, savedMessage{Role: m.Role, savedContent: w.content(m.Content)})
	}
	if len(sp.Messages) == 0 {
		sp.Messages = []savedMessage{{Role: "user", savedContent: savedContent{Text: w.text(notRecorded)}}}
	}
	return sp
}

// compact is JSON text without spaces, its keys in the order written.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// when is the expression that holds for exactly these arguments: their count, and each one
// equal (a nested value compared as the JSON expr-lang's toJSON writes).
func when(args json.RawMessage) string {
	v, err := jsonv.Decode(args)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return "len(args) == 0"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := []string{"len(args) == " + strconv.Itoa(len(m))}
	for _, k := range keys {
		ref := "args[" + strconv.Quote(k) + "]"
		switch x := m[k].(type) {
		case string:
			parts = append(parts, ref+" == "+strconv.Quote(x))
		case bool, int, float64:
			b, _ := json.Marshal(x)
			parts = append(parts, ref+" == "+string(b))
		case nil:
			parts = append(parts, ref+" == nil")
		default:
			b, _ := json.MarshalIndent(x, "", "  ") // toJSON's own layout
			parts = append(parts, "toJSON("+ref+") == "+strconv.Quote(string(b)))
		}
	}
	return strings.Join(parts, " && ")
}

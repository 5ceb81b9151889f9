package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

// richLists lists one of each item with every field a revision may lack.
type richLists struct{}

var (
	richIcons = []mcp.Icon{{Src: "https://example.com/i.png"}}
	readOnly  = true
)

func (richLists) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "t", Title: "T", Description: "d", OutputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &readOnly}, Icons: richIcons}}, "", nil
}

func (richLists) CallTool(context.Context, *mcp.RequestContext, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nil, mcp.ErrUnknownTool
}

func (richLists) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return []mcp.Resource{{URI: "x://r", Name: "r", Title: "R", Icons: richIcons}}, "", nil
}

func (richLists) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return []mcp.ResourceTemplate{{URITemplate: "x://{a}", Name: "rt", Title: "RT", Icons: richIcons}}, "", nil
}

func (richLists) ReadResource(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceContents, error) {
	return nil, mcp.ErrResourceNotFound
}

func (richLists) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return []mcp.Prompt{{Name: "p", Title: "P", Arguments: []mcp.PromptArgument{{Name: "a", Title: "A"}}, Icons: richIcons}}, "", nil
}

func (richLists) GetPrompt(context.Context, *mcp.RequestContext, string, map[string]string) (*mcp.GetPromptResult, error) {
	return nil, mcp.ErrUnknownPrompt
}

// Each revision is listed the fields it defines and no newer ones, over a real socket, on
// sessions and on 2026-07-28; the lists are cached per revision without mixing them up.
func TestListsKeepToTheRevisionsFields(t *testing.T) {
	for _, cached := range []bool{false, true} {
		s := &mcp.Server{Info: mcp.Implementation{Name: "rich", Version: "1"}, Versions: mcp.MockVersions, Tools: richLists{},
			Resources: richLists{}, Prompts: richLists{}, CacheLists: cached}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		f := newFront(t, New(s, Options{}))
		lists := func(call func(method string) string) string {
			var b strings.Builder
			for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
				b.WriteString(call(m))
			}
			return b.String()
		}
		for _, tt := range []struct {
			version       string
			want, wantNot []string
		}{
			{mcp.Version20241105, []string{`"name":"t"`}, []string{`"icons"`, `"title"`, `"outputSchema"`, `"annotations"`}},
			{mcp.Version20250326, []string{`"annotations":{"readOnlyHint":true}`}, []string{`"icons"`, `"title"`, `"outputSchema"`}},
			{mcp.Version20250618, []string{`"title":"T"`, `"outputSchema"`, `"title":"R"`, `"title":"RT"`, `"title":"P"`, `"title":"A"`},
				[]string{`"icons"`}},
			{mcp.Version20251125, []string{`"title":"T","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"icons":[{"src":"https://example.com/i.png"}]`,
				`"title":"R","icons"`, `"title":"RT","icons"`, `"title":"A"}],"icons"`}, nil},
			{mcp.Version20260728, []string{`"outputSchema"`, `"title":"A"}],"icons"`}, nil},
		} {
			t.Run(fmt.Sprintf("%s cached=%v", tt.version, cached), func(t *testing.T) {
				var got string
				if tt.version == mcp.Version20260728 {
					got = lists(func(m string) string {
						in := mcptest.ModernPost(m, "", "{}")
						h := []string{}
						for k, v := range in.Header {
							h = append(h, k, v[0])
						}
						return readAll(t, f.do(t, "POST", "/mcp", string(in.Body), h...))
					})
				} else {
					c := f.open(t, tt.version, "{}")
					got = lists(func(m string) string {
						_, body := c.call(t, `{"jsonrpc":"2.0","id":1,"method":"`+m+`"}`)
						return body
					})
				}
				for _, w := range tt.want {
					if !strings.Contains(got, w) {
						t.Errorf("lists lack %s:\n%s", w, got)
					}
				}
				for _, w := range tt.wantNot {
					if strings.Contains(got, w) {
						t.Errorf("lists hold %s:\n%s", w, got)
					}
				}
			})
		}
	}
}

// On the sessionless server a request that names its revision gets that revision's fields; one
// that names none (assumed 2025-03-26 for the protocol's rules) gets them all.
func TestStatelessListsKeepToTheNamedRevision(t *testing.T) {
	s := &mcp.Server{Info: mcp.Implementation{Name: "rich", Version: "1"}, Tools: richLists{}}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := s.ServeStateless(r.Context(), toRequest(r))
		w.Header().Set("Content-Type", out.ContentType)
		w.WriteHeader(out.Status)
		_, _ = w.Write(out.Body)
	}))
	defer srv.Close()
	list := func(version string) string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set(mcp.HeaderProtocolVersion, version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, resp)
	}
	if got := list(""); !strings.Contains(got, `"icons"`) || !strings.Contains(got, `"title":"T"`) {
		t.Fatalf("no revision named: %s", got)
	}
	if got := list(mcp.Version20250618); strings.Contains(got, `"icons"`) || !strings.Contains(got, `"title":"T"`) {
		t.Fatalf("2025-06-18: %s", got)
	}
	if got := list(mcp.Version20250326); strings.Contains(got, `"title"`) || !strings.Contains(got, `"annotations"`) {
		t.Fatalf("2025-03-26: %s", got)
	}
}

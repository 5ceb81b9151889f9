package mock_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp/mock"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// update decodes edited settings as the workspace does and hands them to
// the live server.
func update(live *mock.Server, n *yaml.Node, at config.Where) (config.Diags, error) {
	d, ds := runtime.DecodeBlockSettings("mcp-mock", n, at)
	if len(ds) > 0 {
		return nil, ds
	}
	return live.Update(d)
}

func settingsNode(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// notes records the notifications a client hears.
type notes struct {
	mu   sync.Mutex
	seen []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	n.seen = append(n.seen, s)
	n.mu.Unlock()
}

func (n *notes) has(s string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.seen {
		if x == s {
			return true
		}
	}
	return false
}

func (n *notes) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { n.add("tools") },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { n.add("prompts") },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { n.add("resources") },
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			n.add("updated " + r.Params.URI)
		},
	}
}

const before = `
tools: [ { name: get_weather, description: Weather, result: sunny } ]
resources: [ { uri: "docs://readme", name: readme, text: "v1" } ]
prompts: [ { name: p, description: P, messages: [ { text: hi } ] } ]
`

var where = config.Where{File: "test.yaml", Path: "mcp", Kind: mock.KindServer, Name: "test-mock"}

func TestAnEditReachesConnectedClients(t *testing.T) {
	s := serve(t, before)
	n := &notes{}
	cs := connect(t, s.url, n.options())
	ctx := testCtx(t)
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	live := s.live()
	if live == nil {
		t.Fatal("no live server for the settings node")
	}
	t.Run("renaming a tool sends tools/list_changed and the next list shows it", func(t *testing.T) {
		edit := strings.Replace(before, "get_weather", "get_forecast", 1)
		if _, err := update(live, settingsNode(t, edit), where); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return n.has("tools") })
		list, err := cs.ListTools(ctx, nil)
		if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "get_forecast" {
			t.Fatalf("%s %v", jsonOf(list), err)
		}
		if n.has("prompts") || n.has("resources") {
			t.Fatalf("unchanged lists were announced: %v", n.seen)
		}
	})
	t.Run("changing a subscribed resource sends resources/updated", func(t *testing.T) {
		edit := strings.Replace(strings.Replace(before, "get_weather", "get_forecast", 1), `"v1"`, `"v2"`, 1)
		if _, err := update(live, settingsNode(t, edit), where); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return n.has("updated docs://readme") })
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
		if err != nil || res.Contents[0].Text != "v2" {
			t.Fatalf("%s %v", jsonOf(res), err)
		}
	})
	t.Run("a broken edit is refused and the last good version keeps serving", func(t *testing.T) {
		_, err := update(live, settingsNode(t, "tools: [ { name: x, reslt: y } ]"), where)
		var ds config.Diags
		if !errors.As(err, &ds) || !strings.Contains(ds.Error(), `unknown key "reslt"`) {
			t.Fatalf("err = %v", err)
		}
		list, _ := cs.ListTools(ctx, nil)
		if list.Tools[0].Name != "get_forecast" {
			t.Fatalf("tools = %s", jsonOf(list))
		}
	})
	t.Run("an edit with a bad item serves the rest and names the problem", func(t *testing.T) {
		problems, err := update(live, settingsNode(t, `tools: [ { name: ok, result: fine }, { name: bad, result: "{{$nope}}" } ]`), where)
		if err != nil || len(problems) != 1 || !strings.Contains(problems.Error(), "$nope") {
			t.Fatalf("problems %v, err %v", problems, err)
		}
		list, _ := cs.ListTools(ctx, nil)
		if len(list.Tools) != 1 || list.Tools[0].Name != "ok" {
			t.Fatalf("tools = %s", jsonOf(list))
		}
	})
	t.Run("changing the instructions asks for a restart", func(t *testing.T) {
		_, err := update(live, settingsNode(t, "instructions: new\n"+before), where)
		if !errors.Is(err, runtime.ErrRebuild) {
			t.Fatalf("err = %v, want ErrRebuild", err)
		}
	})
}

package mock_test

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// 2,000 tools come in pages of 1,000 by default (a smaller pageSize makes more), each page
// naming the next; the official client follows them to the end, and a cursor the server did not
// give is -32602.
func TestLongListsComeInPages(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  - { name: tool_%04d, result: ok }\n", i)
	}
	for _, tt := range []struct {
		settings string
		pages    int
	}{
		{b.String(), 2},
		{"pageSize: 300\n" + b.String(), 7},
	} {
		s := serve(t, tt.settings)
		cs := connect(t, s.url, nil)
		ctx := testCtx(t)
		first, err := cs.ListTools(ctx, nil)
		if err != nil || first.NextCursor == "" {
			t.Fatalf("first page: %d tools, next %q, %v", len(first.Tools), first.NextCursor, err)
		}
		pages, names := 0, map[string]bool{}
		for cursor := ""; ; {
			page, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, tool := range page.Tools {
				names[tool.Name] = true
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if pages != tt.pages || len(names) != 2000 || !names["tool_0000"] || !names["tool_1999"] {
			t.Fatalf("%d pages, %d tools", pages, len(names))
		}
		all := 0
		for _, err := range cs.Tools(ctx, nil) { // the SDK's own iterator follows the cursors
			if err != nil {
				t.Fatal(err)
			}
			all++
		}
		if all != 2000 {
			t.Fatalf("the SDK's iterator saw %d tools", all)
		}
		if _, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: "not-ours"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "cursor") {
			t.Fatalf("a foreign cursor: %v", err)
		}
	}
}

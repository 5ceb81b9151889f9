package workspace_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

const billingServer = `name: Billing API
kind: http
port: 0
http:
  routes:
    - path: /invoices/{id}
      body: '{"id": "{{params.id}}", "currency": "{{currency}}"}'
`

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A saved server of kind http is an HTTP API on its port, beside the MCP servers, with the
// workspace's variables; an edit of its file is taken in place once it settles.
func TestAnHTTPServerIsServedAndEdited(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"workspace.yaml":         "variables: { currency: EUR }\n",
		"servers/Billing.yaml":   billingServer,
		"servers/Echo.yaml":      echoServer,
		"servers/Unrelated.yaml": "name: Unrelated\nport: 0\n",
	})
	r := run(t, dir, workspace.Options{Servers: []string{"Billing API"}})
	name, url := r.next(t)
	if name != "Billing API" || !strings.HasSuffix(url, "/") {
		t.Fatalf("ready %q at %q", name, url)
	}
	if status, body := get(t, url+"invoices/7"); status != 200 || body != `{"id": "7", "currency": "EUR"}` {
		t.Fatalf("GET: %d %s", status, body)
	}
	r.waitLog(t, "200 for GET /invoices/7")
	edited := strings.Replace(billingServer, `"currency": "{{currency}}"`, `"currency": "{{currency}}", "paid": true`, 1)
	if err := os.WriteFile(filepath.Join(dir, "servers/Billing.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := get(t, url+"invoices/7")
		if strings.Contains(body, `"paid": true`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the edit never served: %s\n%s", body, r.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.waitLog(t, `msg="settings updated" flow=http block=http-mock name="Billing API" server="Billing API" routes=1`) // in place: the same port
}

// A server of kind http keeps to its kind: its settings are under http:, and stdio is MCP's.
func TestAnHTTPServerKeepsToItsKind(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"servers/Billing.yaml": billingServer})
	err := workspace.Run(context.Background(), dir, workspace.Options{Transport: workspace.Stdio})
	if err == nil || !strings.Contains(err.Error(), "Billing API is an HTTP API (kind http); --stdio serves an MCP server") {
		t.Fatalf("stdio: %v", err)
	}
	mixed := billingServer + "mcp:\n  tools: []\n"
	if _, ds := workspace.ReadServer(writeOne(t, mixed)); len(ds) == 0 || !strings.Contains(ds.Error(), "a server of kind http has an http: section, not mcp: (or set kind: mcp)") {
		t.Fatalf("mixed: %v", ds)
	}
	if _, ds := workspace.ReadServer(writeOne(t, "name: X\nkind: soap\n")); len(ds) == 0 || !strings.Contains(ds.Error(), "soap") {
		t.Fatalf("unknown kind: %v", ds)
	}
}

func writeOne(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"servers/X.yaml": text})
	return filepath.Join(dir, "servers/X.yaml")
}

// http.cors lets browsers on other origins call the API (a preflight answered, the origin
// allowed); without it a cross-origin request is refused, as an MCP server's is.
func TestAnHTTPServerAnswersBrowsersWithCORS(t *testing.T) {
	for _, cors := range []bool{true, false} {
		dir := t.TempDir()
		text := strings.Replace(billingServer, "http:\n", "http:\n  cors: "+strconv.FormatBool(cors)+"\n", 1)
		writeFiles(t, dir, map[string]string{"servers/Billing.yaml": text, "workspace.yaml": "variables: { currency: EUR }\n"})
		r := run(t, dir, workspace.Options{})
		_, url := r.next(t)
		pre, _ := http.NewRequest(http.MethodOptions, url+"invoices/7", nil)
		pre.Header.Set("Origin", "http://app.example.com")
		pre.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := http.DefaultClient.Do(pre)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allowed := resp.Header.Get("Access-Control-Allow-Origin") == "http://app.example.com"
		if allowed != cors {
			t.Fatalf("cors %v: preflight %d, allowed %v", cors, resp.StatusCode, allowed)
		}
		req, _ := http.NewRequest(http.MethodGet, url+"invoices/7", nil)
		req.Header.Set("Origin", "http://app.example.com")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if (resp.StatusCode == http.StatusOK) != cors {
			t.Fatalf("cors %v: a cross-origin GET got %d", cors, resp.StatusCode)
		}
	}
}

package httpresponse_test

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/fail"
	_ "github.com/octo-run/octo/blocks/httpresponse"
	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/connectors/http"
	_ "github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// config serves /created (a literal status and headers, one a template), /status (the status
// from the body) and /split (a header rendered from the body).
const config = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: created
    source: { connector: api, settings: { path: /created } }
    process:
      - type: set-payload
        settings: { value: '{"id": body.id}' }
      - type: http-response
        settings:
          status: 201
          headers:
            Location: '/orders/{{ body.id }}'
            cache-control: no-store
  - name: status
    source: { connector: api, settings: { path: /status } }
    process:
      - type: http-response
        settings: { status: body.status, headers: { X-Kind: status } }
  - name: text
    source: { connector: api, settings: { path: /text } }
    process:
      - type: set-payload
        settings: { value: '"Hello, " + body.name' }
      - type: http-response
        settings: { headers: { Content-Type: 'text/plain; charset=utf-8' } }
  - name: split
    source: { connector: api, settings: { path: /split } }
    process:
      - type: http-response
        settings: { headers: { X-Echo: '{{ body.h }}' } }
`

type answer struct {
	status int
	header http.Header
	body   string
}

func post(t *testing.T, url, body string) answer {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func TestTheFlowAnswersWithTheStatusAndHeadersItSets(t *testing.T) {
	log := &runtimetest.Buffer{}
	_, base := runtimetest.Serve(t, fmt.Sprintf(config, 0), "api", log)
	defer http.DefaultClient.CloseIdleConnections()

	t.Run("a literal status and headers, one rendered from the body", func(t *testing.T) {
		a := post(t, base+"/created", `{"id": 42}`)
		if a.status != 201 || a.header.Get("Location") != "/orders/42" || a.header.Get("Cache-Control") != "no-store" || a.body != `{"id":42}` {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
	})
	t.Run("a string answered as text is the text itself", func(t *testing.T) {
		a := post(t, base+"/text", `{"name": "Ada"}`)
		if a.status != 200 || a.header.Get("Content-Type") != "text/plain; charset=utf-8" || a.body != "Hello, Ada" {
			t.Fatalf("%d %v %q", a.status, a.header, a.body)
		}
	})
	t.Run("a status from an expression", func(t *testing.T) {
		a := post(t, base+"/status", `{"status": 418}`)
		if a.status != 418 || a.header.Get("X-Kind") != "status" {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
	})
	t.Run("a status outside 100 to 599 fails as internal", func(t *testing.T) {
		a := post(t, base+"/status", `{"status": 42}`)
		if a.status != 500 || a.body != `{"error":"internal error"}` || a.header.Get("X-Kind") != "" {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
	})
	t.Run("a header value rendered with a line break fails as internal, the log says which", func(t *testing.T) {
		a := post(t, base+"/split", `{"h": "a\r\nX-Injected: 1"}`)
		if a.status != 500 || a.body != `{"error":"internal error"}` || a.header.Get("X-Injected") != "" || a.header.Get("X-Echo") != "" {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
		want := "c.yaml:29:9: flows.split.process[0] (http-response): header X-Echo: the rendered value holds a line break or a NUL"
		if !strings.Contains(log.String(), want) || strings.Contains(log.String(), "X-Injected") {
			t.Fatalf("the log does not say %q, or holds the value:\n%s", want, log)
		}
	})
}

func TestBrokenResponsesAreReportedAtTheirSettings(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

package fail_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/octo-run/octo/blocks/fail"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const config = `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: missing
    source: { connector: api, settings: { path: /a } }
    process:
      - type: fail
        settings: { message: 'no forecast for {{ body.city }}', kind: not found }
  - name: plain
    source: { connector: api, settings: { path: /b } }
    process:
      - type: fail
        settings: { message: a city is required }
  - name: coded
    source: { connector: api, settings: { path: /d } }
    process:
      - type: fail
        settings: { message: 'crashed on {{ body.city }}', code: -32603, kind: unavailable }
  - name: broken
    source: { connector: api, settings: { path: /c } }
    process:
      - type: fail
        settings: { message: '{{ body.city.name + 1 }}', kind: conflict }
`

func TestFailEndsTheFlowWithItsMessageAndKind(t *testing.T) {
	svc := runtimetest.StartConfig(t, config, nil)
	cases := []struct {
		name, flow, body string
		kind             runtime.ErrorKind
		msg              string
	}{
		{"the message is rendered and the kind is the one written", "missing", `{"city": "Atlantis"}`, runtime.KindNotFound, "no forecast for Atlantis"},
		{"without a kind, the error is invalid input", "plain", `{}`, runtime.KindInvalid, "a city is required"},
		{"a message that cannot be rendered fails as internal, saying which expression failed", "broken", `{"city": {"name": "x"}}`, runtime.KindInternal, `expression " body.city.name + 1 " failed: invalid operation: string + int`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runtimetest.RunFlow(t, svc, c.flow, runtime.NewMessage([]byte(c.body)))
			e := runtime.ErrorOf(err)
			if out != nil || e.Kind != c.kind || e.Msg != c.msg {
				t.Fatalf("answer %v, error %v: kind %v %q, want %v %q", out, err, e.Kind, e.Msg, c.kind, c.msg)
			}
			if !strings.Contains(err.Error(), "c.yaml:") || !strings.Contains(err.Error(), "flows."+c.flow+".process[0] (fail)") {
				t.Fatalf("error %q does not name the fail block and its line", err)
			}
		})
	}
}

// A code rides along as the error's cause for MCP blocks to answer; the kind still says what
// went wrong for every other transport.
func TestAFailWithACodeCarriesItsProtocolError(t *testing.T) {
	svc := runtimetest.StartConfig(t, config, nil)
	_, err := runtimetest.RunFlow(t, svc, "coded", runtime.NewMessage([]byte(`{"city": "Oslo"}`)))
	pe, ok := errors.AsType[*fail.ProtocolError](err)
	if e := runtime.ErrorOf(err); !ok || pe.Code != -32603 || pe.Message != "crashed on Oslo" || e.Kind != runtime.KindUnavailable || e.Msg != "crashed on Oslo" {
		t.Fatalf("error %v: protocol error %+v, kind %v", err, pe, runtime.ErrorOf(err).Kind)
	}
	if _, err := runtimetest.RunFlow(t, svc, "plain", runtime.NewMessage([]byte(`{}`))); errors.As(err, new(*fail.ProtocolError)) {
		t.Fatalf("a fail without a code carries a protocol error: %v", err)
	}
}

func TestBrokenFailsAreReportedAtTheirSettings(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

func TestEveryKindFailOffersIsARuntimeKind(t *testing.T) {
	for _, name := range []string{"invalid", "unauthorized", "forbidden", "not found", "conflict", "too large", "unavailable", "timeout", "upstream"} {
		if k, ok := runtime.KindNamed(name); !ok || k.String() != name {
			t.Errorf("kind %q is not the runtime's", name)
		}
	}
}

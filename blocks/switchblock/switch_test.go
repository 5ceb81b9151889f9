package switchblock_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/fail"
	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/blocks/switchblock"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const head = `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
`

// grade is a switch on body.score with two overlapping cases and, when withDefault, a default.
func grade(withDefault bool) string {
	text := head + `      - type: switch
        cases:
          - when: body.score >= 90
            process:
              - type: set-payload
                settings: { value: '"excellent"' }
          - when: body.score >= 50
            process:
              - type: set-payload
                settings: { value: '{"grade": "pass", "note": body.note}' }
              - type: set-payload
                settings: { value: 'body.grade + " (" + body.note + ")"' }
          - when: body.flag
            process:
              - type: set-payload
                settings: { value: '"flagged"' }
`
	if withDefault {
		text += `        default:
          - type: set-payload
            settings: { value: '"fail"' }
`
	}
	return text
}

func TestTheFirstCaseThatHoldsRunsElseTheDefault(t *testing.T) {
	svc := runtimetest.StartConfig(t, grade(true), nil)
	cases := []struct{ name, body, want string }{
		{"the first true case wins over a later true one", `{"score": 95}`, "excellent"},
		{"a later case runs when the earlier ones are false", `{"score": 60, "note": "1"}`, "pass (1)"},
		{"a when of null does not match, and with none true the default runs", `{"score": 10}`, "fail"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(c.body)))
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := out.Body(); v != c.want {
				t.Fatalf("body %v, want %q", v, c.want)
			}
		})
	}
}

func TestWithoutADefaultAMessageNoCaseTakesGoesOnUnchanged(t *testing.T) {
	svc := runtimetest.StartConfig(t, grade(false), nil)
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"score": 10}`)))
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Raw()) != `{"score": 10}` {
		t.Fatalf("body %q, want the message as it came", out.Raw())
	}
}

func TestAWhenThatIsNeitherTrueNorFalseFailsAsInternalNamingTheCase(t *testing.T) {
	svc := runtimetest.StartConfig(t, grade(false), nil)
	_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"score": 10, "flag": "yes"}`)))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindInternal {
		t.Fatalf("error %v of kind %v, want internal", err, e.Kind)
	}
	for _, want := range []string{"flows.f.process[0] (switch)", `cases[2].when: expression "body.flag" gave string, not true or false`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestABlockFailingInACaseIsNamedByItsAddressAndLine(t *testing.T) {
	svc := runtimetest.StartConfig(t, grade(false), nil)
	if svc.Instance("flows.f.process[0].cases[1].process[1]") == nil {
		t.Fatalf("a case's block has no address; addresses: %v", svc.Instances())
	}
	// body.note is unset: string + nil fails in the second block of the second case.
	_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"score": 60}`)))
	be, ok := errors.AsType[*runtime.BlockError](err)
	if !ok {
		t.Fatalf("error %v names no block", err)
	}
	if be.Addr != "flows.f.process[0].cases[1].process[1]" || !strings.HasSuffix(be.At, "c.yaml:16:17") || be.Type != "set-payload" {
		t.Fatalf("failed block %q at %q (%s), want the second case's second block at c.yaml:16:17", be.Addr, be.At, be.Type)
	}
}

func TestBrokenSwitchesAreReportedAtTheirSettings(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

package catch_test

import (
	"context"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// BenchmarkCatchTrySucceeds is what a catch costs when nothing fails: the copy of the message
// its try branch runs on.
func BenchmarkCatchTrySucceeds(b *testing.B) {
	benchFlow(b, `{"fail": "no"}`)
}

// BenchmarkTryWithoutCatch is BenchmarkCatchTrySucceeds's blocks without the catch around them:
// the baseline of what a catch adds.
func BenchmarkTryWithoutCatch(b *testing.B) {
	benchConfig(b, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: set-payload
        settings: { value: '{"changed": true, "fail": body.fail}' }
      - type: switch
        cases:
          - when: body.fail == "not found"
            process:
              - type: fail
                settings: { message: 'no such city', kind: not found }
          - when: body.fail == "internal"
            process:
              - type: set-payload
                settings: { value: 'body.fail + 1' }
      - type: set-payload
        settings: { value: '"tried"' }
      - type: set-payload
        settings: { value: '{"after": body, "error": nil}' } # no catch: nothing sets vars.error
`, `{"fail": "no"}`)
}

// BenchmarkCatchCaught is a try that fails (a fail block) and a catch branch that answers.
func BenchmarkCatchCaught(b *testing.B) {
	benchFlow(b, `{"fail": "not found"}`)
}

func benchFlow(b *testing.B, body string) { benchConfig(b, config, body) }

func benchConfig(b *testing.B, text, body string) {
	svc := runtimetest.StartConfig(b, text, nil)
	f := svc.Instance("flows.f").(*runtime.Flow)
	ctx := context.Background()
	raw := []byte(body)
	b.ReportAllocs()
	for b.Loop() {
		m := runtime.NewMessage(raw)
		m.SetVar("n", 1)
		if _, err := f.Run(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

package catch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	_ "github.com/octo-run/octo/blocks/catch"
	_ "github.com/octo-run/octo/blocks/delay"
	_ "github.com/octo-run/octo/blocks/fail"
	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/blocks/switchblock"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// config's try branch changes the body, then fails as body.fail says: not found (a fail
// block), internal (an expression that cannot run), or not at all; its catch branch answers
// with the body as it came and vars.error, or fails again when body.rethrow.
const config = `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: catch
        try:
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
        catch:
          - type: switch
            cases:
              - when: body.rethrow == true
                process:
                  - type: fail
                    settings: { message: 'gave up: {{ vars.error.message }}', kind: unavailable }
            default:
              - type: set-payload
                settings: { value: '{"body": body, "error": vars.error}' }
      - type: set-payload
        settings: { value: '{"after": body, "error": vars.error}' }
`

func run(t *testing.T, svc *runtime.Service, body string) (map[string]any, error) {
	t.Helper()
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(body)))
	if err != nil {
		return nil, err
	}
	v, _ := out.Body()
	return v.(map[string]any)["after"].(map[string]any), nil
}

func TestCatchRunsWhenTryFailsWithTheErrorInVars(t *testing.T) {
	log := &runtimetest.Buffer{}
	svc := runtimetest.StartConfig(t, config, log)

	t.Run("a branch that succeeds goes on, catch does not run", func(t *testing.T) {
		out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"fail": "no"}`)))
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := out.Body(); v.(map[string]any)["after"] != "tried" {
			t.Fatalf("body %v, want try's answer", v)
		}
	})
	t.Run("a fail block's message and kind, and its address, are in vars.error", func(t *testing.T) {
		got, err := run(t, svc, `{"fail": "not found", "city": "Atlantis"}`)
		if err != nil {
			t.Fatal(err)
		}
		e := got["error"].(map[string]any)
		if e["message"] != "no such city" || e["kind"] != "not found" || e["block"] != "flows.f.process[0].try[1].cases[0].process[0]" {
			t.Fatalf("vars.error %v", e)
		}
		if body := got["body"].(map[string]any); body["city"] != "Atlantis" || body["changed"] != nil {
			t.Fatalf("catch saw the body %v, want the message as it came to the catch block", body)
		}
	})
	t.Run("an expression that failed shows its short cause, and the log has the whole error", func(t *testing.T) {
		got, err := run(t, svc, `{"fail": "internal"}`)
		if err != nil {
			t.Fatal(err)
		}
		e := got["error"].(map[string]any)
		if e["message"] != `expression "body.fail + 1" failed: invalid operation: string + int` || e["kind"] != "internal" || e["block"] != "flows.f.process[0].try[1].cases[1].process[0]" {
			t.Fatalf("vars.error %v", e)
		}
		if !strings.Contains(log.String(), "caught an error") || !strings.Contains(log.String(), "c.yaml:18:21: flows.f.process[0].try[1].cases[1].process[0] (set-payload)") {
			t.Fatalf("the log does not say what was caught and where:\n%s", log)
		}
	})
	t.Run("a catch branch that fails fails the flow with its own error", func(t *testing.T) {
		_, err := run(t, svc, `{"fail": "not found", "rethrow": true}`)
		if e := runtime.ErrorOf(err); e.Kind != runtime.KindUnavailable || e.Msg != "gave up: no such city" {
			t.Fatalf("error %v (%v), want unavailable: gave up: no such city", err, e.Kind)
		}
	})
}

func TestACancelledRequestIsNotCaught(t *testing.T) {
	svc := runtimetest.StartConfig(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: catch
        try:
          - type: delay
            settings: { duration: 1h }
        catch:
          - type: set-payload
            settings: { value: '"caught"' }
`, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	out, err := svc.Instance("flows.f").(*runtime.Flow).Run(ctx, runtime.NewMessage(nil))
	if err == nil || runtime.ErrorOf(err).Kind != runtime.KindCancelled {
		t.Fatalf("answer %v, error %v; want the cancellation", out, err)
	}
}

func TestAnErrorOfAKindNotListedInOnIsNotCaught(t *testing.T) {
	svc := runtimetest.StartConfig(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: catch
        on: [upstream, timeout]
        try:
          - type: switch
            cases:
              - when: body.busy
                process:
                  - type: fail
                    settings: { message: busy, kind: upstream }
            default:
              - type: fail
                settings: { message: no such item, kind: not found }
        catch:
          - type: set-payload
            settings: { value: '"caught " + vars.error.kind' }
`, nil)
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"busy": true}`)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := out.Body(); v != "caught upstream" {
		t.Fatalf("answer %v: a listed kind was not caught", v)
	}
	_, err = runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"busy": false}`)))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindNotFound || e.Msg != "no such item" {
		t.Fatalf("error %v, want the not found error as it was", err)
	}
}

// vars.error exists in the catch branch only: the try branch reading it is a build error at
// the name, while the catch branch of the same block builds.
func TestOnlyTheCatchBranchMayReadTheError(t *testing.T) {
	const text = `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: catch
        try:
          - type: set-payload
            settings: { value: 'vars.error.message' }
        catch:
          - type: set-payload
            settings: { value: 'vars.error.message' }
`
	_, err := runtimetest.BuildConfig(t, text, nil)
	if err == nil {
		t.Fatal("a try branch reading vars.error was built")
	}
	want := `c.yaml:9:38: flows[0].process[0].try[0].settings.value (set-payload): unknown var "error": no block before this one sets it`
	if got := err.Error(); !strings.Contains(got, want) || strings.Contains(got, "catch[0]") {
		t.Fatalf("got %s\nwant only %s", got, want)
	}
}

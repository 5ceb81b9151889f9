package setpayload_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// flow is a config whose flow f runs one set-payload of value.
func flow(value string) string {
	return "connectors: [ { name: api, type: http, settings: { port: 0 } } ]\nflows:\n  - name: f\n" +
		"    source: { connector: api, settings: { path: /f } }\n    process:\n      - type: set-payload\n" +
		"        settings: { value: '" + value + "' }\n"
}

func run(t *testing.T, value, body string) (*runtime.Message, error) {
	t.Helper()
	svc, err := runtimetest.BuildConfig(t, flow(value), nil)
	if err != nil {
		t.Fatal(err)
	}
	return runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(body)))
}

func TestTheExpressionsResultIsTheBody(t *testing.T) {
	for _, tt := range []struct{ name, value, body, want string }{
		{"a map becomes JSON", `{"city": body.city, "n": 2}`, `{"city":"Oslo"}`, `{"city":"Oslo","n":2}`},
		{"a list becomes JSON", `[body.a, body.a + 1]`, `{"a":1}`, `[1,2]`},
		{"a string stays text", `"hello " + body.who`, `{"who":"you"}`, `"hello you"`},
		{"a number stays a number", `body.a * 2`, `{"a":2}`, `4`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := run(t, tt.value, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			v, err := m.Body()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(mustJSON(t, v)); got != tt.want {
				t.Fatalf("body %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAFailingExpressionFailsTheFlowNamingTheBlock(t *testing.T) {
	_, err := run(t, `body.a.b.c`, `{"a": 1}`)
	var be *runtime.BlockError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "set-payload") {
		t.Fatalf("err = %v, want a block error naming set-payload", err)
	}
}

func TestAValueIsRequiredAndCompiledAtBuild(t *testing.T) {
	for _, tt := range []struct{ name, config, want string }{
		{"no value", strings.Replace(flow("x"), "settings: { value: 'x' }", "settings: {}", 1), "value"},
		{"a broken expression", flow(`body.city +`), "c.yaml:7:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runtimetest.BuildConfig(t, tt.config, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("build: %v, want a problem with %q", err, tt.want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

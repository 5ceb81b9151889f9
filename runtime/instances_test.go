package runtime_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func TestEveryInstanceIsReachableByItsConfigAddress(t *testing.T) {
	lookup := func(string) (string, bool) { return "", false }
	cfg, err := config.Load("../samples/mcp-router", lookup)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"connectors.api", "flows.mcp", "flows.mcp.process[0]", "flows.mcp.process[0].tools[0].process[0]"}
	if got := svc.Instances(); !slices.Equal(got, want) {
		t.Fatalf("addresses %q, want %q", got, want)
	}
	cases := []struct{ addr, typ string }{
		{"connectors.api", "*http.Connector"},
		{"flows.mcp", "*runtime.Flow"},
		{"flows.mcp.process[0]", "*router.Block"},
		{"flows.mcp.process[0].tools[0].process[0]", "*setpayload.Block"},
		{"flows.nope", "<nil>"},
	}
	for _, c := range cases {
		t.Run(c.addr+" is a "+c.typ, func(t *testing.T) {
			if got := fmt.Sprintf("%T", svc.Instance(c.addr)); got != c.typ {
				t.Fatalf("got %s", got)
			}
		})
	}
}

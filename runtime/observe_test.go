package runtime_test

import (
	"context"
	"testing"

	"github.com/octo-run/octo/ops"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// The runtime observes every flow and block run once, with the kind of each failure: what
// ops turns into octo_flow_* and octo_block_* metrics.
func TestEveryFlowAndBlockRunIsObservedWithItsFailuresKind(t *testing.T) {
	m := ops.NewMetrics("test")
	queueFlow(t, runtime.Options{Observer: m})
	theQueue.put(context.Background(), `{"n":1}`)  // unavailable, then done
	theQueue.put(context.Background(), `not json`) // invalid
	for _, c := range []struct {
		name, metric string
		want         float64
	}{
		{"the flow ran three times", `octo_flow_runs_total{flow="f",service="q"}`, 3},
		{"once unavailable", `octo_flow_errors_total{flow="f",kind="unavailable",service="q"}`, 1},
		{"once invalid", `octo_flow_errors_total{flow="f",kind="invalid",service="q"}`, 1},
		{"its block ran three times", `octo_block_runs_total{block="flows.f.process[0]",flow="f",name="",service="q",tool="",type="test-flaky"}`, 3},
		{"and failed as the flow did", `octo_block_errors_total{block="flows.f.process[0]",flow="f",kind="unavailable",name="",service="q",tool="",type="test-flaky"}`, 1},
		{"each run's latency is in the histogram", `octo_block_duration_seconds_count{block="flows.f.process[0]",flow="f",name="",service="q",tool="",type="test-flaky"}`, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runtimetest.Scrape(t, m.Handler())[c.metric]; got != c.want {
				t.Fatalf("%s = %v, want %v", c.metric, got, c.want)
			}
		})
	}
}

package runtime_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/octo-run/octo/ops"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// The runtime observes every flow and block run once, with the kind of each failure: what
// ops turns into octo_flow_* and octo_block_* metrics.
func TestEveryFlowAndBlockRunIsObservedWithItsFailuresKind(t *testing.T) {
	*theQueue = queue{}
	dir := t.TempDir()
	yaml := "service: { name: q }\nconnectors:\n  - { name: q, type: test-queue }\nflows:\n  - name: f\n    source: { connector: q }\n    process: [ { type: test-flaky } ]\n"
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	m := ops.NewMetrics("test")
	if _, err := runtime.NewService(cfg, runtime.Options{Observer: m}); err != nil {
		t.Fatal(err)
	}
	theQueue.put(context.Background(), `{"n":1}`)  // unavailable, then done
	theQueue.put(context.Background(), `not json`) // invalid
	for _, c := range []struct {
		name, metric string
		want         float64
	}{
		{"the flow ran three times", `octo_flow_runs_total{flow="f",service="q"}`, 3},
		{"once unavailable", `octo_flow_errors_total{flow="f",kind="unavailable",service="q"}`, 1},
		{"once invalid", `octo_flow_errors_total{flow="f",kind="invalid",service="q"}`, 1},
		{"its block ran three times", `octo_block_runs_total{block="flows.f.process[0]",flow="f",service="q",type="test-flaky"}`, 3},
		{"and failed as the flow did", `octo_block_errors_total{block="flows.f.process[0]",flow="f",kind="unavailable",service="q",type="test-flaky"}`, 1},
		{"each run's latency is in the histogram", `octo_block_duration_seconds_count{block="flows.f.process[0]",flow="f",service="q",type="test-flaky"}`, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scrape(t, m)[c.metric]; got != c.want {
				t.Fatalf("%s = %v, want %v", c.metric, got, c.want)
			}
		})
	}
}

// scrape reads the metrics as a scraper does: each series, as the text format writes it, to
// its value.
func scrape(t *testing.T, m *ops.Metrics) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	out := map[string]float64{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("not a sample: %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

package http_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/octo-run/octo/ops"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// metric reads one series from m as a scraper does; -1 when it is not there.
func metric(t *testing.T, m *ops.Metrics, series string) float64 {
	t.Helper()
	if v, ok := runtimetest.Scrape(t, m.Handler())[series]; ok {
		return v
	}
	return -1
}

func TestTheConnectorCountsRequestsInFlightAndWhatItRefuses(t *testing.T) {
	m := ops.NewMetrics("test")
	base, _, _ := startObserved(t, `
service: { name: s }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, maxInFlight: 1, maxBodyBytes: 8 } }
flows:
  - { name: hold, source: { connector: api, settings: { path: /hold } }, process: [ { type: test-hold } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`, m)
	const inFlight = `octo_http_in_flight_requests{connector="api",service="s"}`
	rejected := func(reason string) string {
		return `octo_http_rejected_total{connector="api",reason="` + reason + `",service="s"}`
	}
	entered, release := openGate(t)
	client := newClient(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		if resp, err := client.Get(base + "/hold"); err == nil {
			resp.Body.Close()
		}
	})
	<-entered
	if got := metric(t, m, inFlight); got != 1 {
		t.Fatalf("in flight while one request is held: %v", got)
	}
	if status, _, _ := get(t, client, base+"/echo"); status != 503 {
		t.Fatalf("a second request got %d, want 503", status)
	}
	close(release)
	wg.Wait()
	resp, err := client.Post(base+"/echo", "application/json", strings.NewReader(`"more than 8 bytes"`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("a large body got %d", resp.StatusCode)
	}
	for series, want := range map[string]float64{
		inFlight:                       0,
		rejected("overloaded"):         1,
		rejected("body_too_large"):     1,
		rejected("streams"):            0,
		rejected("client_connections"): 0,
	} {
		if got := metric(t, m, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}

func TestTheAccessLogIsOneLinePerRequestWhenAskedFor(t *testing.T) {
	const cfg = `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1%s } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`
	t.Run("off by default", func(t *testing.T) {
		base, _, logs := startLogged(t, strings.Replace(cfg, "%s", "", 1))
		get(t, newClient(t), base+"/echo?token=secret")
		if strings.Contains(logs.String(), "msg=access") {
			t.Fatalf("logged:\n%s", logs)
		}
	})
	t.Run("on: method, path, status, bytes, duration, remote and request id, never the query or headers", func(t *testing.T) {
		base, svc, logs := startLogged(t, strings.Replace(cfg, "%s", ", accessLog: true", 1))
		req, _ := http.NewRequest(http.MethodPost, base+"/echo?token=secret", strings.NewReader(`{"a":1}`))
		req.Header.Set("Authorization", "Bearer hush")
		req.Header.Set("X-Request-Id", "r-7")
		resp, err := newClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("X-Request-Id") != "r-7" {
			t.Fatalf("X-Request-Id %q", resp.Header.Get("X-Request-Id"))
		}
		// A stopped connector has answered its requests, and logged them.
		if err := svc.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(logs.String(), "msg=access"); n != 1 {
			t.Fatalf("%d access lines:\n%s", n, logs)
		}
		_, line, _ := strings.Cut(logs.String(), "msg=access")
		for _, want := range []string{"method=POST", "path=/echo ", "status=200", "bytes=7", "duration=", "remote=127.0.0.1:", "request_id=r-7"} {
			if !strings.Contains(line, want) {
				t.Errorf("no %q in %s", want, line)
			}
		}
		if strings.Contains(line, "secret") || strings.Contains(line, "hush") {
			t.Errorf("the line shows the query or a header: %s", line)
		}
	})
}

package http_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A request still running at three quarters of the grace period is
// cancelled and answered, 503 naming why, before the period ends; Stop
// then returns cleanly.
func TestStopAnswersARequestStillRunningBeforeItsGracePeriodEnds(t *testing.T) {
	base, svc, logs := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: wait
    source: { connector: api, settings: { path: /wait } }
    process:
      - { type: log, settings: { message: "waiting a minute" } }
      - { type: delay, settings: { duration: 1m } }
`)
	got := make(chan string, 1)
	client := newClient(t)
	go func() {
		resp, err := client.Post(base+"/wait", "application/json", strings.NewReader(`{}`))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- strconv.Itoa(resp.StatusCode) + " " + string(b)
	}()
	eventuallyLogged(t, logs, "waiting a minute")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if a, want := <-got, `503 {"error":"the server is shutting down"}`; a != want {
		t.Fatalf("got %s, want %s", a, want)
	}
}

package http_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// unitConfig serves /v with answer on port, and /held with answer once the test's gate opens.
func unitConfig(port int, answer, extra string) string {
	return fmt.Sprintf(`connectors:
  - { name: api, type: http, settings: { port: %d%s } }
flows:
  - name: v
    source: { connector: api, settings: { path: /v } }
    process: [ { type: set-payload, settings: { value: '%q' } } ]
  - name: held
    source: { connector: api, settings: { path: /held } }
    process: [ { type: test-hold }, { type: set-payload, settings: { value: '%q' } } ]
`, port, extra, answer, answer)
}

// buildUnit builds yaml as a build of unit on table.
func buildUnit(t *testing.T, shared *runtime.Shared, unit, yaml string) *runtime.Service {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Shared: shared, Unit: unit})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func startUnit(t *testing.T, shared *runtime.Shared, unit, yaml string) *runtime.Service {
	t.Helper()
	svc := buildUnit(t, shared, unit, yaml)
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return svc
}

func stop(t *testing.T, svc *runtime.Service) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// fetch GETs url and says whether the connection was a kept-alive one.
func fetch(client *http.Client, url string) (status int, body string, reused bool, err error) {
	req, _ := http.NewRequest("GET", url, nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	}))
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", reused, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), reused, err
}

func TestALaterBuildTakesTheAddressOverWithoutDroppingARequest(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	first := startUnit(t, shared, "u", unitConfig(port, "one", ""))
	client := newClient(t)

	// Every request of the load must be answered; those sent once the old build has stopped
	// must get the new answer. (A request's answer is judged by when it was sent: one sent
	// before the handover may be read after it.)
	var failures, afterStop atomic.Int64
	var stopped atomic.Bool
	done, stopLoad := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stopLoad:
					return
				default:
				}
				late := stopped.Load()
				status, body, _, err := fetch(client, url)
				if err != nil || status != 200 {
					failures.Add(1)
					t.Errorf("a request failed during the handover: %d %v", status, err)
					return
				}
				if late {
					afterStop.Add(1)
					if body != `"two"` {
						failures.Add(1)
						t.Errorf("a request sent after the old build stopped got %s", body)
						return
					}
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	second := startUnit(t, shared, "u", unitConfig(port, "two", ""))
	t.Run("requests after the takeover get the new answer, also on kept-alive connections", func(t *testing.T) {
		status, body, reused, err := fetch(client, url)
		if err != nil || status != 200 || body != `"two"` {
			t.Fatalf("%d %s %v", status, body, err)
		}
		if !reused {
			t.Log("the client opened a new connection; the load's connections were kept alive")
		}
	})
	stop(t, first)
	stopped.Store(true)
	t.Run("the address stays bound once the old build stopped", func(t *testing.T) {
		if _, body, _, err := fetch(client, url); err != nil || body != `"two"` {
			t.Fatalf("%s %v", body, err)
		}
	})
	// Let the load send some requests after the stop before it ends.
	for deadline := time.Now().Add(10 * time.Second); afterStop.Load() < 8 && failures.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	close(stopLoad)
	<-done
	if failures.Load() > 0 || afterStop.Load() == 0 {
		t.Fatalf("%d failures, %d requests sent after the old build stopped", failures.Load(), afterStop.Load())
	}
	// A connection the client opened but never used counts as busy for 5s in net/http's
	// shutdown; a client going away closes its connections.
	client.CloseIdleConnections()
	stop(t, second)
	if keys := shared.Keys(); len(keys) != 0 {
		t.Fatalf("still held: %q", keys)
	}
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		t.Fatal("the port is still bound after the last build stopped")
	}
}

func TestAKeptAliveConnectionCarriesOnWithTheNewRoutes(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	first := startUnit(t, shared, "u", unitConfig(port, "one", ""))
	client := newClient(t)
	if _, body, _, err := fetch(client, url); err != nil || body != `"one"` {
		t.Fatalf("%s %v", body, err)
	}
	startUnit(t, shared, "u", unitConfig(port, "two", ""))
	stop(t, first)
	_, body, reused, err := fetch(client, url)
	if err != nil || body != `"two"` || !reused {
		t.Fatalf("answer %s on a reused connection %v: %v", body, reused, err)
	}
}

func TestARequestInFlightFinishesOnTheBuildThatBeganIt(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	entered, release := openGate(t)
	first := startUnit(t, shared, "u", unitConfig(port, "one", ""))
	client := newClient(t)
	type result struct {
		body string
		err  error
	}
	held := make(chan result, 1)
	go func() {
		_, body, _, err := fetch(client, base+"/held")
		held <- result{body, err}
	}()
	<-entered
	startUnit(t, shared, "u", unitConfig(port, "two", ""))
	if _, body, _, err := fetch(client, base+"/v"); err != nil || body != `"two"` {
		t.Fatalf("a request after the takeover: %s %v", body, err)
	}
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- first.Stop(ctx)
	}()
	close(release)
	if r := <-held; r.err != nil || r.body != `"one"` {
		t.Fatalf("the held request got %s %v, want the old build's answer", r.body, r.err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
}

func TestAStopOutOfTimeCutsOnlyItsOwnRequests(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	entered, _ := openGate(t)
	first := startUnit(t, shared, "u", unitConfig(port, "one", ""))
	held := make(chan error, 1)
	go func() {
		_, _, _, err := fetch(newClient(t), base+"/held")
		held <- err
	}()
	<-entered
	startUnit(t, shared, "u", unitConfig(port, "two", ""))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no time at all
	if err := first.Stop(ctx); err == nil {
		t.Fatal("a stop that ran out of time said it finished")
	}
	if err := <-held; err == nil {
		t.Fatal("the old build's request was not cut")
	}
	if _, body, _, err := fetch(newClient(t), base+"/v"); err != nil || body != `"two"` {
		t.Fatalf("the new build stopped serving: %s %v", body, err)
	}
}

func TestAnotherUnitFindsTheAddressInUse(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	startUnit(t, shared, "u", unitConfig(port, "one", ""))
	other := buildUnit(t, shared, "v", unitConfig(port, "two", ""))
	err := other.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), `address already in use by connector "api"`) {
		t.Fatalf("got %v", err)
	}
}

func TestABuildThatFailsToStartGivesTheAddressBack(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	startUnit(t, shared, "u", unitConfig(port, "one", ""))
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	broken := buildUnit(t, shared, "u", strings.Replace(unitConfig(port, "two", ""), "flows:", fmt.Sprintf(
		"  - { name: other, type: http, settings: { port: %d } }\nflows:", taken.Addr().(*net.TCPAddr).Port), 1))
	if err := broken.Start(context.Background()); err == nil {
		t.Fatal("a build whose second port is taken started")
	}
	if _, body, _, err := fetch(newClient(t), url); err != nil || body != `"one"` {
		t.Fatalf("%s %v, want the running build's answer", body, err)
	}
}

func TestConnectionSettingsOfANewBuildApplyToNewConnections(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	first := startUnit(t, shared, "u", unitConfig(port, "one", ""))
	old := newClient(t)
	if _, _, _, err := fetch(old, url); err != nil {
		t.Fatal(err)
	}
	startUnit(t, shared, "u", unitConfig(port, "two", ", maxHeaderBytes: 1024"))
	stop(t, first)
	big := strings.Repeat("x", 16<<10) // net/http allows 4 KiB over maxHeaderBytes
	t.Run("a new connection gets the new header limit", func(t *testing.T) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("X-Big", big)
		resp, err := newClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("a connection opened before keeps its settings and gets the new routes", func(t *testing.T) {
		if _, body, reused, err := fetch(old, url); err != nil || body != `"two"` || !reused {
			t.Fatalf("%s reused %v: %v", body, reused, err)
		}
	})
}

// A connection that was opened and has sent nothing holds no request, so a
// stop does not wait for it: net/http alone would give it five seconds.
func TestStopDoesNotWaitForAConnectionThatSentNothing(t *testing.T) {
	base, svc := start(t, routes)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The echo answer proves the server has accepted connections, this one among them.
	if status, _, _ := post(t, newClient(t), base+"/echo", `{"a":1}`); status != 200 {
		t.Fatalf("echo status %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Fatalf("stop with a connection that sent nothing: %v", err)
	}
}

// slowConfig serves /slow, which waits for wait before answering answer, and /v at once; each
// request to /slow passes test-hold first, which says it entered.
func slowConfig(port int, answer, wait string) string {
	return fmt.Sprintf(`connectors:
  - { name: api, type: http, settings: { port: %d } }
flows:
  - name: v
    source: { connector: api, settings: { path: /v } }
    process: [ { type: set-payload, settings: { value: '%q' } } ]
  - name: slow
    source: { connector: api, settings: { path: /slow } }
    process:
      - { type: test-hold }
      - { type: delay, settings: { duration: %s } }
      - { type: set-payload, settings: { value: '%q' } }
`, port, answer, wait, answer)
}

// A stop that runs out of patience cancels the flows its own build began, answered 503, and
// only those: a flow the next build runs meanwhile finishes, a connection kept alive for the
// next build carries on, and the connection the forced request came on is closed after its
// answer (its context is spent) rather than handed a next request.
func TestAForcedStopEndsOnlyTheFlowsOfItsBuild(t *testing.T) {
	shared, port := runtime.NewShared(), runtimetest.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	entered, release := openGate(t)
	close(release) // test-hold only says a request entered
	first := startUnit(t, shared, "u", slowConfig(port, "one", "1m"))
	type result struct {
		status int
		body   string
		err    error
	}
	slow := func(client *http.Client) chan result {
		got := make(chan result, 1)
		go func() {
			status, body, _, err := fetch(client, base+"/slow")
			got <- result{status, body, err}
		}()
		<-entered
		return got
	}
	oldClient, nextClient, keptClient := newClient(t), newClient(t), newClient(t)
	old := slow(oldClient)
	startUnit(t, shared, "u", slowConfig(port, "two", "1s"))
	if _, body, _, err := fetch(keptClient, base+"/v"); err != nil || body != `"two"` {
		t.Fatalf("%s %v", body, err)
	}
	running := slow(nextClient)

	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	if err := first.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if r := <-old; r.err != nil || r.status != http.StatusServiceUnavailable || r.body != `{"error":"the server is shutting down"}` {
		t.Fatalf("the old build's flow: %d %s %v", r.status, r.body, r.err)
	}
	if r := <-running; r.err != nil || r.status != http.StatusOK || r.body != `"two"` {
		t.Fatalf("the new build's flow, running during the forced stop: %d %s %v", r.status, r.body, r.err)
	}
	if _, body, reused, err := fetch(oldClient, base+"/v"); err != nil || body != `"two"` || reused {
		t.Fatalf("after the forced answer: %s on a reused connection %v: %v", body, reused, err)
	}
	if _, body, reused, err := fetch(keptClient, base+"/v"); err != nil || body != `"two"` || !reused {
		t.Fatalf("a connection kept alive for the new build: %s, reused %v: %v", body, reused, err)
	}
}

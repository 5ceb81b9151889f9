package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// rollingCall and rollingWant are the router sample's forecast call and its answer.
const (
	rollingCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`
	rollingWant = `"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}`
)

// replica is one octo of the rolling restart, on its own service and admin ports.
type replica struct {
	port, admin int
	p           *proc
	ready       atomic.Bool // what the balancer last read on /readyz
}

func (r *replica) start(t *testing.T) {
	t.Helper()
	r.p = startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(r.port)}, "run", "--config", "samples/mcp-router",
		"--admin", "127.0.0.1:"+strconv.Itoa(r.admin), "--drain-delay", "1s", "--shutdown-timeout", "5s")
}

// balancer is what a plain load balancer does: round robin over the replicas whose /readyz says
// ready (polled every 100 ms, as a Kubernetes endpoints controller follows readiness), a
// kept-alive connection pool to them, and no retries: a request that fails is a failure.
type balancer struct {
	replicas []*replica
	next     atomic.Uint64
	proxy    *httputil.ReverseProxy
}

func newBalancer(ctx context.Context, replicas []*replica) *balancer {
	b := &balancer{replicas: replicas}
	b.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			r := b.pick()
			if r == nil {
				return // no replica: the transport fails, and the client counts it
			}
			pr.SetURL(&url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(r.port)})
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: 32, IdleConnTimeout: time.Minute},
	}
	probe := &http.Client{Timeout: 200 * time.Millisecond}
	go func() {
		for ctx.Err() == nil {
			for _, r := range replicas {
				resp, err := probe.Get("http://127.0.0.1:" + strconv.Itoa(r.admin) + "/readyz")
				ok := err == nil && resp.StatusCode == http.StatusOK
				if err == nil {
					resp.Body.Close()
				}
				r.ready.Store(ok)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return b
}

func (b *balancer) pick() *replica {
	for range b.replicas {
		r := b.replicas[b.next.Add(1)%uint64(len(b.replicas))]
		if r.ready.Load() {
			return r
		}
	}
	return nil
}

// TestARollingRestartBehindAPlainBalancerFailsNoRequest restarts three replicas one after the
// other while about 200 requests a second go through a balancer that does not retry: with
// --drain-delay each replica reports stopping, keeps serving while the balancer takes it out
// and closes its kept-alive connections after an answer, so no request meets a closing port.
func TestARollingRestartBehindAPlainBalancerFailsNoRequest(t *testing.T) {
	replicas := make([]*replica, 3)
	for i := range replicas {
		replicas[i] = &replica{port: freePort(t), admin: freePort(t)}
		replicas[i].start(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := newBalancer(ctx, replicas)
	front := httptest.NewServer(b.proxy)
	defer front.Close()
	waitReady := func(r *replica) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !r.ready.Load(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("replica on port %d never became ready", r.port)
			}
		}
	}
	for _, r := range replicas {
		waitReady(r)
	}

	var (
		sent, failed atomic.Int64
		firstFailure sync.Once
		failure      string
		wg           sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	tick := time.NewTicker(5 * time.Millisecond) // 200 requests a second
	defer tick.Stop()
	loadCtx, stopLoad := context.WithCancel(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-tick.C:
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sent.Add(1)
				resp, err := client.Post(front.URL+"/mcp", "application/json", strings.NewReader(rollingCall))
				var body []byte
				if err == nil {
					body, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), rollingWant) {
					failed.Add(1)
					firstFailure.Do(func() {
						if err != nil {
							failure = err.Error()
						} else {
							failure = strconv.Itoa(resp.StatusCode) + " " + string(body)
						}
					})
				}
			}()
		}
	}()

	time.Sleep(time.Second)
	for i, r := range replicas {
		_ = r.p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.p.done:
		case <-time.After(15 * time.Second):
			t.Fatalf("replica %d did not stop", i)
		}
		if !strings.Contains(r.p.Log(), "draining: serving on while balancers take this replica out") {
			t.Fatalf("replica %d did not drain:\n%s", i, r.p.Log())
		}
		r.start(t) // on the same ports, as a new pod behind the same service
		waitReady(r)
		time.Sleep(500 * time.Millisecond)
	}
	stopLoad()
	wg.Wait()
	t.Logf("%d requests through three rolling restarts, %d failed", sent.Load(), failed.Load())
	if sent.Load() < 1000 {
		t.Fatalf("only %d requests were sent", sent.Load())
	}
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d requests failed; the first: %s", n, sent.Load(), failure)
	}
}

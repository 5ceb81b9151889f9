package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// result is what one server did during its measured windows.
type result struct {
	requests, errors int
	rps              float64
	p50, p99         time.Duration
	firstErr         string
	cpu              cpuTimes // used during the windows
}

// window is what one server did during one measured window.
type window struct {
	latencies []time.Duration
	errors    int
	firstErr  string
	elapsed   time.Duration // from the window's opening to the end of its last request
	cpu       cpuTimes
}

// cpuTimes are CPU times (user+system) of this process and of the server
// process when it is another one; ok is false where they cannot be read.
type cpuTimes struct {
	self, server time.Duration
	ok           bool
}

func (c cpuTimes) sub(d cpuTimes) cpuTimes {
	return cpuTimes{c.self - d.self, c.server - d.server, c.ok && d.ok}
}

// worker is one keep-alive connection's share of the run.
type worker struct {
	latencies []time.Duration
	errors    int
	firstErr  string
	last      time.Time // when its last measured request ended
}

// loopbackOnly refuses to dial anything but 127.0.0.1, so a mistyped URL
// cannot turn the harness on another host.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		return nil, fmt.Errorf("refusing to dial %s: the load harness only talks to 127.0.0.1", addr)
	}
	return (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, network, addr)
}

// drive posts the call from o.concurrency goroutines, each on its own
// keep-alive connection, for warmup and then duration; only requests
// started after the warm-up count, and cpu is read when the window opens
// and once the last request has ended.
func drive(ctx context.Context, url string, o options, warmup, duration time.Duration, cpu func() cpuTimes) (window, error) {
	tr := &http.Transport{
		DialContext:         loopbackOnly,
		MaxIdleConns:        o.concurrency,
		MaxIdleConnsPerHost: o.concurrency,
		MaxConnsPerHost:     o.concurrency,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	start := time.Now()
	measureFrom := start.Add(warmup)
	end := measureFrom.Add(duration)
	workers := make([]worker, o.concurrency)
	opened := make(chan cpuTimes, 1)
	time.AfterFunc(time.Until(measureFrom), func() { opened <- cpu() })
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run(ctx, client, url, measureFrom, end)
		}(&workers[i])
	}
	wg.Wait()
	closed := cpu()
	if err := ctx.Err(); err != nil {
		return window{}, err
	}
	var w window
	var last time.Time
	for i := range workers {
		wk := &workers[i]
		w.add(wk.latencies, wk.errors, wk.firstErr)
		if wk.last.After(last) {
			last = wk.last
		}
	}
	if len(w.latencies) > 0 {
		w.elapsed = last.Sub(measureFrom)
	}
	w.cpu = closed.sub(<-opened)
	return w, nil
}

func (w *worker) run(ctx context.Context, client *http.Client, url string, measureFrom, end time.Time) {
	body := []byte(callBody)
	want := []byte(wantBody)
	var buf bytes.Buffer
	w.latencies = make([]time.Duration, 0, 1<<14)
	for ctx.Err() == nil {
		t0 := time.Now()
		if !t0.Before(end) {
			return
		}
		err := post(ctx, client, url, body, want, &buf)
		t1 := time.Now()
		if t0.Before(measureFrom) {
			continue
		}
		w.latencies = append(w.latencies, t1.Sub(t0))
		w.last = t1
		if err != nil {
			w.errors++
			if w.firstErr == "" {
				w.firstErr = err.Error()
			}
		}
	}
}

// post sends the call the way an MCP client does and checks the answer is
// a 200 carrying exactly the expected JSON-RPC response.
func post(ctx context.Context, client *http.Client, url string, body, want []byte, buf *bytes.Buffer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(buf.Bytes(), want) {
		return fmt.Errorf("got %d %q", resp.StatusCode, buf.Bytes())
	}
	return nil
}

// add counts a worker's or a window's requests in w.
func (w *window) add(latencies []time.Duration, errors int, firstErr string) {
	w.latencies = append(w.latencies, latencies...)
	w.errors += errors
	if w.firstErr == "" {
		w.firstErr = firstErr
	}
}

// summarize puts one server's windows of a round together.
func summarize(ws []window) result {
	var (
		all     window
		elapsed time.Duration
		cpu     = cpuTimes{ok: len(ws) > 0}
	)
	for _, w := range ws {
		all.add(w.latencies, w.errors, w.firstErr)
		elapsed += w.elapsed
		cpu = cpuTimes{cpu.self + w.cpu.self, cpu.server + w.cpu.server, cpu.ok && w.cpu.ok}
	}
	r := result{requests: len(all.latencies), errors: all.errors, firstErr: all.firstErr, cpu: cpu}
	if r.requests == 0 || elapsed <= 0 {
		return r
	}
	slices.Sort(all.latencies)
	r.p50 = all.latencies[(r.requests-1)*50/100]
	r.p99 = all.latencies[(r.requests-1)*99/100]
	r.rps = float64(r.requests-r.errors) / elapsed.Seconds()
	return r
}

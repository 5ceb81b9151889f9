// Command load measures the mcp-router sample under load against a
// hand-written net/http JSON-RPC server that gives the same answer, the
// fair baseline for what the router's generality costs. It starts the octo
// binary on a free loopback port, drives each server in turn with the same
// keep-alive client, checks every answer, and prints requests/s, p50 and
// p99 latency, errors and the octo/raw throughput ratio. It owns nothing
// of octo itself and talks to it only over HTTP.
//
//	go run ./samples/e2e/load -binary .build/octo
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The request both servers answer, and their answer to it, byte for byte.
const (
	callBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`
	wantBody = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"Sunny, 24C\"}"}],"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}}}`
)

type options struct {
	binary, config          string
	rawInProcess            bool
	duration, warmup        time.Duration
	concurrency, procs      int
	rounds, slices          int
	minRatio                float64
	startTimeout, stopGrace time.Duration
	idleWait                time.Duration
}

func main() {
	os.Exit(run())
}

// run returns the exit code; every cleanup is deferred inside it so that it
// also happens on failure (os.Exit would skip defers in main).
func run() int {
	var o options
	flag.StringVar(&o.binary, "binary", ".build/octo", "the octo binary to measure")
	flag.StringVar(&o.config, "config", "samples/mcp-router", "the sample to serve")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "how long to measure each server")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "how long to drive each server before measuring")
	flag.IntVar(&o.concurrency, "concurrency", 32, "concurrent keep-alive connections")
	flag.IntVar(&o.procs, "procs", runtime.NumCPU(), "GOMAXPROCS of this process and of octo")
	flag.IntVar(&o.rounds, "rounds", 1, "measure octo and raw this many times; the ratio reported is the median")
	flag.IntVar(&o.slices, "slices", 8, "windows each server is measured in per round, in turns with the other's (the duration and warm-up are shared out among them)")
	flag.Float64Var(&o.minRatio, "min-ratio", 0, "exit 1 when octo/raw throughput is below this (0: report only)")
	flag.DurationVar(&o.idleWait, "idle-wait", 0, "after the load, wait this long and read the resident sizes again (0: do not); octo hands back once idle for OCTO_IDLE_RELEASE, 30s by default")
	flag.DurationVar(&o.startTimeout, "start-timeout", 15*time.Second, "how long to wait for octo to answer")
	flag.DurationVar(&o.stopGrace, "stop-grace", 3*time.Second, "how long octo may take to stop before it is killed")
	flag.BoolVar(&o.rawInProcess, "raw-in-process", false, "serve the baseline inside this process, beside the client, instead of as a process of its own")
	serveRaw := flag.Bool("serve-raw", false, "serve the baseline on a free loopback port until killed (what the harness runs as its raw process)")
	flag.Parse()
	if *serveRaw {
		if err := serveRawForever(); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			return 1
		}
		return 0
	}
	if o.duration <= 0 || o.warmup < 0 || o.concurrency <= 0 || o.procs <= 0 || o.rounds <= 0 {
		fmt.Fprintln(os.Stderr, "load: -duration, -concurrency, -procs and -rounds must be positive, -warmup not negative")
		return 2
	}
	runtime.GOMAXPROCS(o.procs)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := measure(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	return 0
}

func measure(ctx context.Context, o options) error {
	where := "a process of its own"
	if o.rawInProcess {
		where = "this process, beside the client"
	}
	fmt.Printf("load: %d CPUs, GOMAXPROCS=%d for octo, the raw server (in %s) and the client, "+
		"concurrency %d, warmup %s, duration %s, %d round(s), each server measured in %d windows in turns\n",
		runtime.NumCPU(), o.procs, where, o.concurrency, o.warmup, o.duration, o.rounds, max(o.slices, 1))

	proc, octoURL, err := startOcto(ctx, o)
	if err != nil {
		return err
	}
	defer func() { _ = proc.stop() }()
	raw, err := startRaw(ctx, o)
	if err != nil {
		return err
	}
	defer raw.stop()
	reportRSS("idle RSS, started, before any request:", proc.started, startedRSS(raw.proc))
	reportRSS("idle RSS, after one call:", readRSS(proc), readRSS(raw.proc))

	var ratios, cpuRatios []float64
	errs := 0
	for round := 1; round <= o.rounds; round++ {
		octoRes, rawRes, err := oneRound(ctx, o, proc, octoURL, raw)
		if err != nil {
			return err
		}
		report("octo", octoRes)
		report("raw", rawRes)
		ratio := octoRes.rps / rawRes.rps
		ratios = append(ratios, ratio)
		fmt.Printf("round %d: octo/raw throughput %.2f, p99 %.2f× raw", round, ratio, float64(octoRes.p99)/float64(rawRes.p99))
		if c, ok := perRequestCPU(octoRes, rawRes); ok {
			cpuRatios = append(cpuRatios, c.ratio())
			fmt.Printf("; CPU µs per request: %s; ratio %.2f", c, c.ratio())
		}
		fmt.Println()
		if n := octoRes.errors + rawRes.errors; n > 0 {
			errs += n
			fmt.Fprintf(os.Stderr, "load: %d wrong or failed answers (octo %d, raw %d); first: %s\n",
				n, octoRes.errors, rawRes.errors, firstOf(octoRes.firstErr, rawRes.firstErr))
		}
	}
	reportRSS("RSS after the load:", readRSS(proc), readRSS(raw.proc))
	if o.idleWait > 0 {
		// octo hands back what a load left once it has been idle for OCTO_IDLE_RELEASE (30s).
		time.Sleep(o.idleWait)
		reportRSS(fmt.Sprintf("RSS idle again, %s after the load:", o.idleWait), readRSS(proc), readRSS(raw.proc))
	}
	if err := proc.stop(); err != nil {
		return err
	}
	ratio, lo, hi := median(ratios)
	verdict := "met"
	if ratio < 0.6 {
		verdict = "NOT met"
	}
	fmt.Printf("ratio octo/raw throughput: %.3f (median of %d; min %.2f, max %.2f; target >= 0.60: %s)\n",
		ratio, len(ratios), lo, hi, verdict)
	if len(cpuRatios) > 0 {
		c, lo, hi := median(cpuRatios)
		fmt.Printf("ratio of CPU per request, raw run/octo run (server and client): %.2f (median of %d; min %.2f, max %.2f)\n",
			c, len(cpuRatios), lo, hi)
	}
	switch {
	case errs > 0:
		return fmt.Errorf("%d wrong or failed answers", errs)
	case ratio < o.minRatio:
		return fmt.Errorf("ratio %.2f is below -min-ratio %.2f", ratio, o.minRatio)
	}
	return nil
}

// oneRound drives octo and the raw server in turns: the round's duration is cut into
// o.slices windows per server, and each pair of windows swaps who goes first (octo, raw, raw,
// octo, …). A VM's speed drifts from second to second; two servers measured in long runs one
// after the other were compared at different speeds (a round's ratio moved from 0.77 to 1.13
// with the same binary), while windows in turns see the same drift.
func oneRound(ctx context.Context, o options, proc *octoProc, octoURL string, raw *rawServer) (octo, rawRes result, err error) {
	n := max(o.slices, 1)
	length := o.duration / time.Duration(n)
	warmup := o.warmup / time.Duration(n)
	var octoWs, rawWs []window
	// turn drives one server for a window; p is nil when it runs in this process.
	turn := func(name, url string, p *octoProc, into *[]window) error {
		w, err := drive(ctx, url, o, warmup, length, serverCPU(p))
		if err == nil && p != nil && !p.alive() {
			err = fmt.Errorf("exited during the run (%v)\n%s", p.err, p.logs.String())
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*into = append(*into, w)
		return nil
	}
	octoTurn := func() error { return turn("octo", octoURL, proc, &octoWs) }
	rawTurn := func() error { return turn("raw", raw.url, raw.proc, &rawWs) }
	for i := range n {
		order := [2]func() error{octoTurn, rawTurn}
		if i%2 == 1 {
			order = [2]func() error{rawTurn, octoTurn}
		}
		for _, t := range order {
			if err := t(); err != nil {
				return octo, rawRes, err
			}
		}
	}
	return summarize(octoWs), summarize(rawWs), nil
}

// serverCPU reads the CPU times of this process and of the server process p (nil: the server
// runs in this process).
func serverCPU(p *octoProc) func() cpuTimes {
	return func() cpuTimes {
		self, ok := selfCPU()
		if p == nil {
			return cpuTimes{self: self, ok: ok}
		}
		server, ok2 := processCPU(p.cmd.Process.Pid)
		return cpuTimes{self, server, ok && ok2}
	}
}

// requestCPU is CPU time per measured request, in microseconds, of each server process and of
// this one (the client) during its run; with the baseline in this process, rawServer is 0
// and rawClient holds both. Unlike requests/s, these barely move when other work shares the
// machine, and the totals compare like for like: the same client plus each server.
type requestCPU struct{ octo, octoClient, raw, rawClient float64 }

func (c requestCPU) ratio() float64 { return (c.raw + c.rawClient) / (c.octo + c.octoClient) }

func (c requestCPU) String() string {
	if c.raw == 0 {
		return fmt.Sprintf("octo %.0f + client %.0f = %.0f, raw with client %.0f", c.octo, c.octoClient, c.octo+c.octoClient, c.rawClient)
	}
	return fmt.Sprintf("octo %.0f + client %.0f = %.0f, raw %.0f + client %.0f = %.0f",
		c.octo, c.octoClient, c.octo+c.octoClient, c.raw, c.rawClient, c.raw+c.rawClient)
}

func perRequestCPU(octo, raw result) (requestCPU, bool) {
	if !octo.cpu.ok || !raw.cpu.ok || octo.requests == 0 || raw.requests == 0 {
		return requestCPU{}, false
	}
	us := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
	c := requestCPU{octo: us(octo.cpu.server, octo.requests), octoClient: us(octo.cpu.self, octo.requests),
		raw: us(raw.cpu.server, raw.requests), rawClient: us(raw.cpu.self, raw.requests)}
	return c, c.octo+c.octoClient > 0
}

// reportRSS prints octo's and the raw process's resident memory as read (zero when unknown,
// or when the baseline runs inside this process).
func reportRSS(label string, octo, raw resident) {
	line := label
	if octo.kb > 0 {
		line += fmt.Sprintf(" octo %.1f MB%s", float64(octo.kb)/1024, octo.parts)
	}
	if raw.kb > 0 {
		line += fmt.Sprintf(" raw %.1f MB", float64(raw.kb)/1024)
	}
	fmt.Println(line)
}

func median(xs []float64) (mid, lo, hi float64) {
	slices.Sort(xs)
	return xs[len(xs)/2], xs[0], xs[len(xs)-1]
}

func report(name string, r result) {
	fmt.Printf("  %-5s %9.0f req/s  p50 %8s  p99 %8s  %d requests, %d errors\n",
		name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.requests, r.errors)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// waitReady posts the measured call until it is answered correctly, the
// process exits (exited is closed) or the timeout passes. A wrong answer
// ends it at once: a server that answers is up, and answers so for good.
func waitReady(ctx context.Context, url string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	var last error
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case <-exited:
			return errors.New("exited before it answered")
		default:
		}
		last = checkOnce(client, url)
		var wrong *wrongAnswer
		if last == nil || errors.As(last, &wrong) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no correct answer after %s: %w", timeout, last)
}

func checkOnce(client *http.Client, url string) error {
	resp, err := client.Post(url, "application/json", strings.NewReader(callBody))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || string(b) != wantBody {
		return &wrongAnswer{status: resp.StatusCode, body: b}
	}
	return nil
}

// wrongAnswer is an answer other than wantBody.
type wrongAnswer struct {
	status int
	body   []byte
}

func (w *wrongAnswer) Error() string { return fmt.Sprintf("got %d %s", w.status, w.body) }

func loopbackURL(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

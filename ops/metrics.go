// Package ops is what operators see of a running octo: the admin listener (/healthz, /readyz,
// /metrics) and the Prometheus metrics behind it. It implements runtime.Observer, so the engine
// measures flows, blocks and connectors without importing a metrics library. It knows nothing
// of config files or signals (the run command tells it the state of its unit), and of blocks
// and connectors only the names of the kinds they observe (ProbeMCP, GaugeHTTPInFlight,
// CounterHTTPRejected), which they write as strings so as not to import it.
package ops

import (
	"net/http"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/octo-run/octo/runtime"
)

// Buckets are the latency buckets, in seconds: from 100µs, since a block often runs in
// microseconds, to 10s, where an upstream call times out.
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// family is the metrics of one kind of probe: runs, failures by kind, latency.
type family struct {
	labels []string
	runs   *prometheus.CounterVec
	errs   *prometheus.CounterVec
	dur    *prometheus.HistogramVec
	values func(runtime.Key) []string
}

// newFamily registers octo_<name>_<runs>_total (each run, counted when it ends),
// octo_<name>_errors_total (by kind) and octo_<name>_<duration>_seconds.
func newFamily(reg prometheus.Registerer, name, runs, duration, what string, labels []string, values func(runtime.Key) []string) *family {
	f := &family{
		labels: labels,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "octo_" + name + "_" + runs + "_total",
			Help: what + ", counted when they end."}, labels),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "octo_" + name + "_errors_total",
			Help: what + " that failed, by the kind of failure."}, append(labels[:len(labels):len(labels)], "kind")),
		dur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "octo_" + name + "_" + duration + "_seconds",
			Help: "How long " + strings.ToLower(what) + " took, in seconds.", Buckets: Buckets}, labels),
		values: values,
	}
	reg.MustRegister(f.runs, f.errs, f.dur)
	return f
}

// probe is bound to its labels when a service is built: a run costs two atomic adds and a
// histogram observation; only a failure looks its kind's counter up.
type probe struct {
	runs prometheus.Counter
	dur  prometheus.Observer
	errs *prometheus.CounterVec // curried down to "kind"
}

func (f *family) probe(k runtime.Key) *probe {
	vals := f.values(k)
	curried := prometheus.Labels{}
	for i, l := range f.labels {
		curried[l] = vals[i]
	}
	return &probe{runs: f.runs.WithLabelValues(vals...), dur: f.dur.WithLabelValues(vals...), errs: f.errs.MustCurryWith(curried)}
}

func (p *probe) Done(start time.Time, fail string) {
	p.runs.Inc()
	p.dur.Observe(time.Since(start).Seconds())
	if fail != "" {
		p.errs.WithLabelValues(fail).Inc()
	}
}

// Metrics is a registry of octo's metrics and the runtime.Observer that feeds it.
type Metrics struct {
	reg      *prometheus.Registry
	flows    *family
	blocks   *family
	mcp      *family
	inFlight *prometheus.GaugeVec
	rejected *prometheus.CounterVec
	reloads  *prometheus.CounterVec
	lastOK   prometheus.Gauge
}

// NewMetrics makes the registry: octo's own metrics, build info for version, and the Go
// runtime's and the process's standard collectors.
func NewMetrics(version string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{reg: reg}
	m.flows = newFamily(reg, "flow", "runs", "duration", "Flow runs", []string{"service", "flow"},
		func(k runtime.Key) []string { return []string{k.Service, k.Flow} })
	m.blocks = newFamily(reg, "block", "runs", "duration", "Block runs", []string{"service", "flow", "block", "type", "name", "tool"},
		func(k runtime.Key) []string { return []string{k.Service, k.Flow, k.Block, k.Type, k.Name, k.Tool} })
	m.mcp = newFamily(reg, "mcp", "requests", "request_duration", "MCP requests answered", []string{"service", "flow", "block", "method", "tool"},
		func(k runtime.Key) []string { return []string{k.Service, k.Flow, k.Block, k.Method, k.Target} })
	m.inFlight = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "octo_http_in_flight_requests",
		Help: "Requests an http connector is working on."}, []string{"service", "connector"})
	m.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "octo_http_rejected_total",
		Help: "Requests and connections an http connector refused, by reason."}, []string{"service", "connector", "reason"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "octo_reloads_total",
		Help: "Config reloads, and polls that applied edits of a workspace's files, by result (ok, failed)."}, []string{"result"})
	m.lastOK = prometheus.NewGauge(prometheus.GaugeOpts{Name: "octo_config_last_reload_successful",
		Help: "1 when the last reload applied, 0 when it failed and the previous config keeps serving."})
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "octo_build_info", Help: "Always 1; its labels say which octo runs.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": goruntime.Version()}})
	info.Set(1)
	m.lastOK.Set(1)
	m.reloads.WithLabelValues("ok")
	m.reloads.WithLabelValues("failed")
	reg.MustRegister(m.inFlight, m.rejected, m.reloads, m.lastOK, info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Probe is runtime.Observer's: flows, blocks and MCP methods and tools have families of
// their own; another kind is a programming error in the block that asked, which gets none.
func (m *Metrics) Probe(k runtime.Key) runtime.Probe {
	switch k.Kind {
	case runtime.ProbeFlow:
		return m.flows.probe(k)
	case runtime.ProbeBlock:
		return m.blocks.probe(k)
	case ProbeMCP:
		return m.mcp.probe(k)
	}
	return nopProbe{}
}

// Gauge is runtime.Observer's: the http connector's requests in flight.
func (m *Metrics) Gauge(k runtime.Key) runtime.Gauge {
	if k.Kind == GaugeHTTPInFlight {
		return m.inFlight.WithLabelValues(k.Service, k.Connector)
	}
	return nopGauge{}
}

// Counter is runtime.Observer's: the http connector's refusals.
func (m *Metrics) Counter(k runtime.Key) runtime.Counter {
	if k.Kind == CounterHTTPRejected {
		return m.rejected.WithLabelValues(k.Service, k.Connector, k.Reason)
	}
	return nopCounter{}
}

// Handler serves the metrics in the Prometheus text format (or another a scraper asks for).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Reloaded counts a reload and whether it applied.
func (m *Metrics) Reloaded(ok bool) {
	if ok {
		m.reloads.WithLabelValues("ok").Inc()
		m.lastOK.Set(1)
		return
	}
	m.reloads.WithLabelValues("failed").Inc()
	m.lastOK.Set(0)
}

// The kinds of probes, gauges and counters besides the runtime's own (runtime.ProbeFlow and
// runtime.ProbeBlock); the blocks and connectors that observe them use these names.
const (
	ProbeMCP            = "mcp"
	GaugeHTTPInFlight   = "http_in_flight"
	CounterHTTPRejected = "http_rejected"
)

type nopProbe struct{}

func (nopProbe) Done(time.Time, string) {}

type nopGauge struct{}

func (nopGauge) Add(float64) {}

type nopCounter struct{}

func (nopCounter) Inc() {}

var _ runtime.Observer = (*Metrics)(nil)

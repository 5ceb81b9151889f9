package http

import (
	"context"
	"net/http"
	"time"

	"github.com/octo-run/octo/runtime"
)

// What the connector tells the service's runtime.Observer (ops turns it into Prometheus
// metrics): its requests in flight, and the requests and connections it refused, by reason.

// The reasons of a refusal, labels of octo_http_rejected_total.
const (
	reasonOverloaded    = iota // maxInFlight: 503
	reasonStreams              // maxStreams: 503
	reasonClientStreams        // maxStreamsPerClient: 503
	reasonClientConns          // maxConnsPerClient: the connection is closed unanswered
	reasonBodyTooLarge         // maxBodyBytes: 413
	reasonBodyStalled          // bodyTimeout, bodyDeadline: 408
	reasonOverBudget           // the process's bytes in flight (admit.go): 503
	reasons
)

var reasonNames = [reasons]string{"overloaded", "streams", "client_streams", "client_connections", "body_too_large", "body_stalled", "over_budget"}

// observers are the connector's gauge and counters, bound to their labels when it is built;
// all nil when the service is not observed.
type observers struct {
	inFlight runtime.Gauge
	rejected [reasons]runtime.Counter
}

func newObservers(b *runtime.ConnectorBuild) observers {
	var o observers
	if o.inFlight = b.Gauge("http_in_flight"); o.inFlight == nil { // ops.GaugeHTTPInFlight
		return o
	}
	for i, name := range reasonNames {
		o.rejected[i] = b.Counter("http_rejected", name) // ops.CounterHTTPRejected
	}
	return o
}

func (o *observers) reject(reason int) {
	if c := o.rejected[reason]; c != nil {
		c.Inc()
	}
}

func (o *observers) inFlightAdd(delta float64) {
	if o.inFlight != nil {
		o.inFlight.Add(delta)
	}
}

// requestID is the id of a request: its X-Request-Id when that is sane (runtime.SaneRequestID),
// else a new one. The answer says it in X-Request-Id, and the request's context carries it, so
// every line logged for the request says request_id.
func requestID(w http.ResponseWriter, r *http.Request, ctx context.Context) context.Context {
	ctx, id := runtime.WithSaneRequestID(ctx, r.Header.Get("X-Request-Id"))
	w.Header()["X-Request-Id"] = id
	return ctx
}

// accessWriter counts what a response wrote, for the access log.
type accessWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (a *accessWriter) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *accessWriter) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	n, err := a.ResponseWriter.Write(b)
	a.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's deadlines and flushing.
func (a *accessWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// logAccess writes the access log's line for a request once it is answered: never its headers,
// query or body, which may hold secrets.
func (c *Connector) logAccess(ctx context.Context, r *http.Request, a *accessWriter, start time.Time) {
	c.logger.InfoContext(ctx, "access", "method", r.Method, "path", r.URL.Path, "status", a.status,
		"bytes", a.bytes, "duration", time.Since(start), "remote", r.RemoteAddr)
}

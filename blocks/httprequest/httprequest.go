// Package httprequest is the http-request block: it calls an HTTP API from a flow and puts the
// answer into the message. Requests go through a pooled client shared, through the runtime's
// resource table, by every block with the same TLS settings, in one build and across reloads.
// It knows HTTP as a client only; what the flow answers its own caller is the connector's.
package httprequest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "http-request",
		Summary: "calls an HTTP API and puts its answer in the body (or in a variable)",
		Doc: "Sends one HTTP request built from templates (url, headers, query) and an expression " +
			"(body, sent as JSON) or a template (rawBody, sent as text), and waits for the answer " +
			"within timeout. By default the answer's body becomes the message body (JSON is decoded " +
			"when a later block first reads it, any other content type is text) and vars.http holds " +
			"its status and headers; into: vars.NAME keeps the body and puts the whole answer in " +
			"vars.NAME. A status outside 2xx (and acceptStatus) fails the block with the status and the " +
			"start of the answer, never with what the request carried. Idempotent methods are retried " +
			"on connection errors, 429 and 503 when retries is set, honouring Retry-After. A caller that " +
			"asked for progress (an MCP client of a router tool) hears of each retry and, each second, " +
			"of a long wait. The request ends when the flow's caller leaves.",
		Example: "type: http-request\nsettings:\n  method: POST\n  url: https://api.example.com/v1/forecast\n" +
			"  headers: { Accept: application/json }\n  query: { units: metric }\n" +
			"  body: '{\"city\": body.city}'\n  timeout: 5s\n",
		Build: runtime.BlockFunc(build),
	})
}

// Settings are the http-request block's settings.
type Settings struct {
	Method string           `yaml:"method" default:"GET" enum:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" octo:"anycase" doc:"The HTTP method, in any case."`
	URL    runtime.Template `yaml:"url" octo:"required" doc:"The URL to call: an absolute http or https URL, a template over body, vars, headers and env. Tag values are inserted as they are: put values that come from callers in query, which encodes them, and keep the scheme and host fixed." example:"https://api.example.com/v1/forecast"`
	// VariableHost lets tags choose the host, which the build refuses otherwise.
	VariableHost bool                        `yaml:"variableHost" doc:"Let the url's tags stand in its scheme or host (a gateway whose target comes from vars). Without it, the scheme and host must be written out before the first tag: a caller's value must not send the request, and its credentials, to another host."`
	Headers      map[string]runtime.Template `yaml:"headers" doc:"Request headers, each value a template. A header whose value renders empty (an optional argument not given) is left out. Content-Type defaults to application/json with body and text/plain with rawBody; User-Agent to octo." example:"{ Authorization: \"Bearer ${API_TOKEN}\" }"`
	Query        map[string]runtime.Template `yaml:"query" doc:"Query parameters added to the url's, each value a template, encoded as a query value. A parameter whose value renders empty (an optional argument not given) is left out, unless requiredQuery names it." example:"{ city: \"{{ body.city }}\", limit: \"{{ body.limit }}\" }"`
	// RequiredQuery turns an empty value from "left out" into a failed call.
	RequiredQuery []string          `yaml:"requiredQuery" doc:"Query parameters that must have a value: one that renders empty fails the call, the model told which parameter, instead of being left out." example:"[city]"`
	Body          *runtime.Expr     `yaml:"body" doc:"An expression whose value is sent as JSON (a string as a JSON string); body sees body, vars, headers and env. Set this or rawBody, not both." example:"{\"city\": body.city}"`
	RawBody       *runtime.Template `yaml:"rawBody" doc:"A template whose text is sent as it renders, for APIs that do not take JSON; set its Content-Type in headers (default text/plain)."`
	// Bounded so a typo cannot hold a request, and the slot it takes, for hours.
	Timeout time.Duration `yaml:"timeout" default:"10s" min:">0" max:"10m" doc:"The longest the whole call may take: connecting, sending, waiting, reading the answer, and every retry and the waits between them."`
	Retries int           `yaml:"retries" default:"0" min:"0" max:"10" doc:"How many times to try again after a connection error, a 429 or a 503, within timeout. Only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS) are retried unless retryNonIdempotent is set."`
	// Capped per wait (maxBackoff), so retries stay within reach of the timeout.
	RetryBackoff       time.Duration `yaml:"retryBackoff" default:"200ms" min:">0" max:"10s" doc:"The wait before the first retry; it doubles for each one after (at most 30s), with random jitter. A Retry-After header (seconds or an HTTP date) replaces it; one past the timeout fails the call at once."`
	RetryNonIdempotent bool          `yaml:"retryNonIdempotent" doc:"Retry POST and PATCH too. A POST whose answer was lost may have been done: set this only when the API ignores repeats (an idempotency key in headers)."`
	AcceptStatus       []string      `yaml:"acceptStatus" doc:"Statuses outside 2xx that count as an answer rather than a failure, each a code (404) or a class (4xx), so a later block can look at vars.http.status. An accepted status is not retried." example:"[404]"`
	MaxResponseBytes   int64         `yaml:"maxResponseBytes" default:"10485760" min:"1" max:"268435456" doc:"The largest answer body read, in bytes (default 10 MiB, at most 256 MiB); a larger one fails the call."`
	Into               string        `yaml:"into" default:"body" doc:"Where the answer goes. body: the answer's body replaces the message body, and vars.http holds {status, headers}. vars.NAME: the body is kept and vars.NAME holds {status, headers, body}. headers maps each name, as Go writes it (Content-Type), to its first value." example:"vars.weather"`
	TLS                TLSSettings   `yaml:"tls" doc:"TLS settings for https URLs, read when the config is built."`
}

// TLSSettings configure how the block trusts servers and proves who it is.
type TLSSettings struct {
	CAFile             string `yaml:"caFile" doc:"A PEM file of the CA certificates that sign the server's certificate, trusted instead of the system's; relative to the config file." example:"certs/ca.pem"`
	CertFile           string `yaml:"certFile" doc:"A PEM client certificate, for servers that ask for one (mutual TLS); set keyFile with it." example:"certs/client.pem"`
	KeyFile            string `yaml:"keyFile" doc:"The PEM private key of certFile." example:"certs/client-key.pem"`
	InsecureSkipVerify bool   `yaml:"insecureSkipVerify" doc:"Accept any server certificate. For local development only: anyone on the path can read and change the traffic."`
	ServerName         string `yaml:"serverName" doc:"The name the server's certificate must carry, when it differs from the URL's host (the URL names an address)."`
}

// Block is a built http-request block. Its client is acquired at Start and released at Stop.
type Block struct {
	req      request
	policy   retryPolicy
	accept   statusSet
	into     string // "" for the body, else the variable name
	maxBytes int64
	timeout  time.Duration
	client   clientSpec
	log      *slog.Logger
	clock    clock

	pool    *pool
	release runtime.Release
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	blk := &Block{timeout: s.Timeout, maxBytes: s.MaxResponseBytes, log: b.Logger(), clock: realClock{}}
	blk.req = buildRequest(b, s)
	blk.policy = buildPolicy(b, s)
	blk.accept = buildAccept(b, s)
	blk.into = buildInto(b, s)
	blk.client = buildClientSpec(b, s)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// SetsVars says which var the blocks after an http-request may read: vars.http, or vars.NAME for
// into: vars.NAME (nothing when into is malformed, which the build reports).
func (s *Settings) SetsVars() []string {
	if s.Into == "" || s.Into == "body" {
		return []string{"http"}
	}
	if name, ok := runtime.IntoVar(s.Into); ok {
		return []string{name}
	}
	return nil
}

// buildInto checks into: body, or vars.NAME with NAME an identifier expressions can reach.
func buildInto(b *runtime.Build, s *Settings) string {
	if s.Into == "body" {
		return ""
	}
	name, ok := runtime.IntoVar(s.Into)
	if !ok {
		b.Errorf(&s.Into, "into %q: expected body or vars.NAME (NAME letters, digits and _, not starting with a digit)", s.Into)
		return ""
	}
	return name
}

// Start takes the pooled client for the block's TLS settings from the shared table, or the
// test transport when `octo test` put one there.
func (blk *Block) Start(context.Context) error {
	if t, release, ok := runtime.Held[TestTransport](blk.client.shared, TestTransportKey); ok {
		blk.pool, blk.release = &pool{client: &http.Client{Transport: t, CheckRedirect: checkRedirect}}, release
		return nil
	}
	p, release, err := runtime.Acquire(blk.client.shared, blk.client.key, blk.client.open)
	if err != nil {
		return fmt.Errorf("http-request: %w", err)
	}
	blk.pool, blk.release = p, release
	return nil
}

// Stop gives the client back; the last holder closes its idle connections.
func (blk *Block) Stop(ctx context.Context) error {
	if blk.release != nil {
		return blk.release(ctx)
	}
	return nil
}

// errNotStarted is a programming error: a flow ran before its service started.
var errNotStarted = errors.New("http-request is not started")

// Process sends the request, retrying as the settings allow, and puts the answer into m. The
// call ends with ctx: a caller that leaves cancels it.
func (blk *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if blk.pool == nil {
		return nil, errNotStarted
	}
	out, err := blk.req.render(m)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, blk.timeout, errTimeout)
	defer cancel()
	res, err := blk.call(ctx, out)
	if err != nil {
		return nil, err
	}
	if err := blk.deliver(m, res, out); err != nil {
		return nil, err
	}
	return m, nil
}

var (
	_ runtime.Block      = (*Block)(nil)
	_ runtime.Starter    = (*Block)(nil)
	_ runtime.Stopper    = (*Block)(nil)
	_ runtime.VarsSetter = (*Settings)(nil)
)

package httprequest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
)

// What a tool that calls an HTTP API costs in octo, beside a Go client making the same call:
// the difference is octo's overhead per call (docs/performance.md).

const (
	benchAnswer = `{"city":"Lisbon","temperatureC":21,"sky":"clear"}`
	benchBody   = `{"city":"Lisbon"}`
)

// benchBackend is the JSON API every benchmark calls.
func benchBackend(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchAnswer)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchFlow is a flow on an http connector whose one block calls the backend.
func benchFlow(b *testing.B, backend string) *runtime.Service {
	env := map[string]string{"BACKEND": backend}
	text := flowOf(blockOf(`          method: POST
          url: ${BACKEND}/forecast
          headers: { Authorization: "Bearer bench-token" }
          body: '{"city": body.city}'
`), env)
	return startService(b, b.TempDir(), text, env, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
}

// post sends benchBody to url and checks the answer is benchAnswer.
func post(b *testing.B, client *http.Client, url string, header http.Header) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(benchBody)))
	req.Header = header
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(got) != benchAnswer {
		b.Fatalf("%d %s %v", resp.StatusCode, got, err)
	}
}

func newBenchClient(b *testing.B) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: maxIdleConnsPerHost}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// BenchmarkDirectClient is the baseline: a Go client posts to the backend itself.
func BenchmarkDirectClient(b *testing.B) {
	backend := benchBackend(b)
	client := newBenchClient(b)
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer bench-token"}}
	b.ReportAllocs()
	for b.Loop() {
		post(b, client, backend.URL+"/forecast", header)
	}
}

// BenchmarkBlock runs the flow in process: the block's own cost over the same call.
func BenchmarkBlock(b *testing.B) {
	backend := benchBackend(b)
	flow := benchFlow(b, backend.URL).Instance("flows.f").(*runtime.Flow)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m, err := flow.Run(ctx, runtime.NewMessage([]byte(benchBody)))
		if err != nil || string(m.Raw()) != benchAnswer {
			b.Fatalf("%v %s", err, m.Raw())
		}
	}
}

// BenchmarkThroughOcto is a client calling octo, whose flow calls the backend: the whole
// path of a tool that wraps an API, two HTTP hops on loopback.
func BenchmarkThroughOcto(b *testing.B) {
	backend := benchBackend(b)
	svc := benchFlow(b, backend.URL)
	url := "http://" + svc.Connector("api").(*octohttp.Connector).Addr() + "/x"
	client := newBenchClient(b)
	header := http.Header{"Content-Type": {"application/json"}}
	b.ReportAllocs()
	for b.Loop() {
		post(b, client, url, header)
	}
}

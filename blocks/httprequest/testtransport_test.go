package httprequest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// fixedTransport answers every call with one JSON body, counting them.
type fixedTransport struct{ calls atomic.Int64 }

func (f *fixedTransport) Close(context.Context) error { return nil }

func (f *fixedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.calls.Add(1)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"from":"the test transport"}`)), Request: req}, nil
}

// A test transport in the table (octo test's stubs) carries the calls of every block, whatever
// its TLS settings, and the backend the config names gets none; without one, the block calls
// the backend as always.
func TestATestTransportInTheTableCarriesEveryCall(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"from":"the backend"}`)
	}))
	defer srv.Close()
	text := flowOf(blockOf("          url: "+srv.URL+"\n")+blockOf("          url: "+srv.URL+"/tls\n          tls: { serverName: api.example.com }\n"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	shared := runtime.NewShared()
	tt := &fixedTransport{}
	_, release, _ := runtime.Acquire(shared, TestTransportKey, func() (TestTransport, error) { return tt, nil })
	defer release(ctx)
	svc := startService(t, t.TempDir(), text, nil, runtime.Options{Shared: shared})
	out, err := svc.Instance("flows.f").(*runtime.Flow).Run(ctx, runtime.NewMessage([]byte(`{}`)))
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := out.Body(); body.(map[string]any)["from"] != "the test transport" || tt.calls.Load() != 2 || hits.Load() != 0 {
		t.Fatalf("body %v, %d calls through the transport, %d to the backend", body, tt.calls.Load(), hits.Load())
	}

	plain := startService(t, t.TempDir(), text, nil, runtime.Options{})
	if _, err := plain.Instance("flows.f").(*runtime.Flow).Run(ctx, runtime.NewMessage([]byte(`{}`))); err != nil || hits.Load() != 2 {
		t.Fatalf("without a test transport: %v, %d calls to the backend", err, hits.Load())
	}
}

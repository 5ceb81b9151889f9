package http_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	octohttp "github.com/octo-run/octo/connectors/http"
)

// Requests are admitted by the bytes they bring: with two big bodies in flight, a third gets
// 503 with Retry-After before its body is read, and so does a body of unannounced length once
// it outgrows the budget; small requests still go through, and big ones again once the held
// ones are answered.
func TestRequestsPastTheBytesInFlightGet503WithRetryAfter(t *testing.T) {
	defer octohttp.SetBytesInFlight(9 << 20)() // two 1 MiB bodies at 4 bytes a byte fit, a third does not
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - { name: hold, source: { connector: api, settings: { path: /hold } }, process: [ { type: test-hold } ] }
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	entered, release := openGate(t)
	big := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	client := newClient(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if resp, err := client.Post(base+"/hold", "application/json", strings.NewReader(big)); err == nil {
				resp.Body.Close()
			}
		})
	}
	for range 2 {
		<-entered
	}
	status, h, body := post(t, newClient(t), base+"/echo", big)
	if status != 503 || h.Get("Retry-After") != "1" || !strings.Contains(body, "too many bytes of requests in flight") {
		t.Fatalf("a third big body got %d Retry-After %q %.200s", status, h.Get("Retry-After"), body)
	}
	chunked, _ := http.NewRequest("POST", base+"/echo", io.MultiReader(strings.NewReader(big))) // no Content-Length
	chunked.ContentLength = -1
	resp, err := newClient(t).Do(chunked)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !bytes.Contains(b, []byte("bytes of requests in flight")) {
		t.Fatalf("a big body of unannounced length got %d %.200s", resp.StatusCode, b)
	}
	if status, _, body := post(t, newClient(t), base+"/echo", `{"a":1}`); status != 200 || body != `{"a":1}` {
		t.Fatalf("a small request beside them got %d %s", status, body)
	}
	close(release)
	wg.Wait()
	if status, _, _ := post(t, newClient(t), base+"/echo", big); status != 200 {
		t.Fatalf("a big body once the held ones were answered got %d", status)
	}
}

// A body that trickles a byte just often enough for bodyTimeout is cut off at bodyDeadline.
func TestABodyThatTricklesIsCutOffAtBodyDeadline(t *testing.T) {
	base, _, _ := startLogged(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, bodyTimeout: 1s, bodyDeadline: 700ms } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		for {
			time.Sleep(100 * time.Millisecond) // the client's pace is what this test is about
			if _, err := io.WriteString(pw, " "); err != nil {
				return
			}
		}
	}()
	req, _ := http.NewRequest("POST", base+"/echo", pr)
	req.ContentLength = 1 << 20
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"error":"request body too slow: not all of it arrived within 700ms (the connector's bodyDeadline)"}`
	if resp.StatusCode != 408 || string(b) != want {
		t.Fatalf("got %d %s, want 408 %s", resp.StatusCode, b, want)
	}
}

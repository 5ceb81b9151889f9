package e2e

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
)

func TestHelloSampleAnswersOverHTTP(t *testing.T) {
	base, _ := runSample(t, "hello")
	cases := []struct {
		name, method, path, body string
		status                   int
		want                     string
		header                   [2]string
	}{
		{"a greeting is built from the posted name", "POST", "/greet", `{"name":"Ada"}`, 200, `{"greeting":"Hello, Ada!"}`, [2]string{}},
		{"bad JSON is a 400 naming the parse error", "POST", "/greet", `{"name":`, 400, `{"error":"invalid JSON body: unexpected end of JSON input (at byte 8)"}`, [2]string{}},
		{"an unknown path is a 404", "GET", "/nope", ``, 404, `{"error":"no route for /nope"}`, [2]string{}},
		{"a wrong method is a 405 with Allow", "GET", "/greet", ``, 405, `{"error":"method GET is not allowed on /greet; allowed: POST"}`, [2]string{"Allow", "POST"}},
		{"a body over 4 MiB is a 413", "POST", "/greet", `{"name":"` + strings.Repeat("x", 4<<20) + `"}`, 413, `{"error":"request body is larger than 4194304 bytes"}`, [2]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, c.method, base+c.path, "application/json", c.body)
			if a.status != c.status || a.body != c.want {
				t.Fatalf("got %d %s, want %d %s", a.status, a.body, c.status, c.want)
			}
			if c.header[0] != "" && a.header.Get(c.header[0]) != c.header[1] {
				t.Fatalf("header %s = %q, want %q", c.header[0], a.header.Get(c.header[0]), c.header[1])
			}
		})
	}
}

func TestSIGTERMLetsASlowRequestFinish(t *testing.T) {
	base, p := runSample(t, "hello")
	type result struct {
		a   answer
		err error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		buf := new(strings.Builder)
		_, err = bufioCopy(buf, resp)
		got <- result{a: answer{status: resp.StatusCode, body: buf.String()}, err: err}
	}()
	waitLog(t, p, "slow request: answering in 2s") // the request is in flight
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil || r.a.status != 200 || r.a.body != `{"done":true}` {
		t.Fatalf("slow request during shutdown: %+v", r)
	}
	exitsZero(t, p)
	if _, err := http.Get(base + "/slow"); err == nil {
		t.Fatal("still accepting after shutdown")
	}
}

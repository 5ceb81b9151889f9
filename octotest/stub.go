package octotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/httprequest"
	"github.com/octo-run/octo/runtime/jsonv"
)

// stubs answers a case's http-request calls from its stubs, in place of the network: the
// transport every http-request and ai-agent block of the case's service sends through
// (httprequest.TestTransportKey). A call no stub matches is answered with an error, as an
// unreachable host would be, and noted so the case fails naming it.
type stubs struct {
	c *loaded

	mu        sync.Mutex
	used      map[int]int // calls answered, by stub index, for stubs with times
	unmatched []string    // "GET https://…" of each call no stub matched
	problems  []string    // how calls differed from what their stubs expect
}

var _ httprequest.TestTransport = (*stubs)(nil)

// Close does nothing: the stubs hold no connection.
func (s *stubs) Close(context.Context) error { return nil }

// RoundTrip answers req from the first stub that matches it and has calls left, after the
// stub's delay.
func (s *stubs) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(req.Body, maxBody))
		_ = req.Body.Close()
	}
	url := req.URL.String()
	if i := s.take(req.Method, url); i >= 0 {
		st := &s.c.Stubs[i]
		if st.Expect != nil {
			s.check(i, req, body)
		}
		if st.Delay > 0 {
			t := time.NewTimer(st.Delay)
			select {
			case <-t.C:
			case <-req.Context().Done():
				t.Stop()
				return nil, req.Context().Err()
			}
		}
		return answer(req, st)
	}
	s.mu.Lock()
	s.unmatched = append(s.unmatched, req.Method+" "+url)
	s.mu.Unlock()
	return nil, fmt.Errorf("octo test: no stub with calls left matches %s %s", req.Method, url)
}

// take returns the index of the first stub that takes a call of method to url and has calls
// left, counting the call against it, or -1. Counting under the lock keeps a stub with times
// from answering more calls than that when calls come at once.
func (s *stubs) take(method, url string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.c.Stubs {
		if !s.matches(i, method, url) {
			continue
		}
		if n := s.c.Stubs[i].Times; n > 0 {
			if s.used[i] >= n {
				continue
			}
			if s.used == nil {
				s.used = map[int]int{}
			}
			s.used[i]++
		}
		return i
	}
	return -1
}

// matches reports whether stub i takes a call of method to url.
func (s *stubs) matches(i int, method, url string) bool {
	st := &s.c.Stubs[i]
	if st.Method != "" && !strings.EqualFold(st.Method, method) {
		return false
	}
	if re := s.c.patterns[i]; re != nil {
		return re.MatchString(url)
	}
	return st.URL == url
}

// answer is the response a stub gives.
func answer(req *http.Request, st *Stub) (*http.Response, error) {
	var body []byte
	ctype := ""
	switch {
	case st.Text != nil:
		body, ctype = []byte(*st.Text), "text/plain; charset=utf-8"
	case st.Body != nil:
		v, err := valueOf(st.Body)
		if err != nil {
			return nil, err
		}
		if body, err = json.Marshal(v); err != nil {
			return nil, err
		}
		ctype = "application/json"
	}
	h := http.Header{}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	for k, v := range st.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status: strconv.Itoa(st.Status) + " " + http.StatusText(st.Status), StatusCode: st.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}, nil
}

// check notes how a call stub i answers differs from what the stub expects it to carry.
func (s *stubs) check(i int, req *http.Request, body []byte) {
	e := s.c.Stubs[i].Expect
	at := fmt.Sprintf("stubs[%d] (%s %s): ", i, req.Method, req.URL.String())
	var problems []string
	for _, k := range sortedKeys(e.Headers) {
		if want, got := e.Headers[k], strings.Join(req.Header.Values(k), ", "); want != got {
			problems = append(problems, fmt.Sprintf("%sheaders.%s: expected %q, got %q", at, k, want, got))
		}
	}
	if e.Body != nil {
		want, err := valueOf(e.Body)
		got, gerr := jsonv.Decode(body)
		switch {
		case err != nil:
			problems = append(problems, at+"expect.body: "+err.Error())
		case gerr != nil:
			problems = append(problems, fmt.Sprintf("%sbody: expected JSON, got %s", at, clip(string(body), 200)))
		default:
			for _, mm := range compare("body", want, got, true) {
				problems = append(problems, at+mm.String())
			}
		}
	}
	s.mu.Lock()
	s.problems = append(s.problems, problems...)
	s.mu.Unlock()
}

// missed returns the calls no stub matched.
func (s *stubs) missed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unmatched...)
}

// mismatched returns how the calls differed from what their stubs expect.
func (s *stubs) mismatched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

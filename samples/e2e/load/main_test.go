package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain lets this test binary be the baseline's process too: the harness starts its own
// executable with -serve-raw, which under go test is this binary.
func TestMain(m *testing.M) {
	if slices.Contains(os.Args[1:], "-serve-raw") {
		if err := serveRawForever(); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// buildOcto builds the binary the harness measures, once per test run.
func buildOcto(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "octo")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building octo: %v\n%s", err, out)
	}
	return bin
}

func quick(bin string) options {
	return options{
		binary: bin, config: "samples/mcp-router",
		duration: 300 * time.Millisecond, warmup: 100 * time.Millisecond,
		concurrency: 4, procs: 2, rounds: 1, slices: 2,
		startTimeout: 15 * time.Second, stopGrace: 3 * time.Second,
	}
}

func TestTheHarness(t *testing.T) {
	bin := buildOcto(t)
	t.Chdir("../../..") // sample paths are relative to the repo root
	t.Run("measures both servers with only correct answers", func(t *testing.T) {
		if err := measure(context.Background(), quick(bin)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("stops octo, and octo then answers no more", func(t *testing.T) {
		p, url, err := startOcto(context.Background(), quick(bin))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.stop(); err != nil {
			t.Fatal(err)
		}
		if p.alive() {
			t.Fatal("octo still runs after stop")
		}
		if err := checkOnce(&http.Client{Timeout: time.Second}, url); err == nil {
			t.Fatal("something still answers on octo's port")
		}
	})
	t.Run("a sample without the tool fails with octo's answer and log", func(t *testing.T) {
		o := quick(bin)
		o.config = "samples/hello" // its 404 ends the wait at once
		_, _, err := startOcto(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "no route for /mcp") || !strings.Contains(err.Error(), "service started") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestTheRawServerRefusesWhatItDoesNotServe(t *testing.T) {
	cases := []struct {
		name, method, body string
		status             int
	}{
		{"the measured call is answered exactly", "POST", callBody, 200},
		{"a GET is refused", "GET", "", 405},
		{"a body that is not JSON is refused", "POST", "{", 400},
		{"another tool is refused", "POST", strings.Replace(callBody, "forecast", "other", 1), 400},
		{"a call without a city is refused", "POST", strings.Replace(callBody, `"city"`, `"town"`, 1), 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			serveRaw(w, httptest.NewRequest(c.method, "/mcp", strings.NewReader(c.body)))
			if w.Code != c.status {
				t.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body)
			}
			if c.status == 200 && w.Body.String() != wantBody {
				t.Fatalf("got %s\nwant %s", w.Body, wantBody)
			}
		})
	}
}

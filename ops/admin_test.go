package ops_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/ops"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTheAdminListenerReportsHealthReadinessAndMetrics(t *testing.T) {
	m := ops.NewMetrics("v1.2.3")
	a, err := ops.Listen("127.0.0.1:0", m, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	base := "http://" + a.Addr()
	steps := []struct {
		name   string
		act    func()
		status int
		body   string
	}{
		{"starting until told otherwise", func() {}, 503, `{"status":"starting"}`},
		{"ready once the service serves", func() { a.SetState(ops.StateReady) }, 200, `{"status":"ready"}`},
		{"still ready after a failed reload, saying so", func() { a.Reloaded(errors.New("x.yaml:1:1: bad")) }, 200, `"ok":false`},
		{"the failure's details stay in the log", func() {}, 200, `the previous config keeps serving`},
		{"a good reload clears it", func() { a.Reloaded(nil) }, 200, `"ok":true`},
		{"stopping", func() { a.SetState(ops.StateStopping) }, 503, `{"status":"stopping"`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.act()
			status, body := get(t, base+"/readyz")
			if status != s.status || !strings.Contains(body, s.body) || strings.Contains(body, "x.yaml") {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
	t.Run("healthz is ok whatever the state", func(t *testing.T) {
		if status, body := get(t, base+"/healthz"); status != 200 || body != "ok\n" {
			t.Fatalf("%d %q", status, body)
		}
	})
	t.Run("metrics say the build and count reloads", func(t *testing.T) {
		m.Reloaded(false)
		_, body := get(t, base+"/metrics")
		for _, want := range []string{`octo_build_info{goversion="go`, `version="v1.2.3"} 1`, `octo_reloads_total{result="failed"} 1`,
			"octo_config_last_reload_successful 0", "go_goroutines ", "process_open_fds "} {
			if !strings.Contains(body, want) {
				t.Errorf("no %q in:\n%s", want, body)
			}
		}
	})
	t.Run("only GET", func(t *testing.T) {
		resp, err := http.Post(base+"/metrics", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("POST /metrics: %d", resp.StatusCode)
		}
	})
}

func TestABarePortIsOnLoopback(t *testing.T) {
	a, err := ops.Listen("0", ops.NewMetrics("x"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if !strings.HasPrefix(a.Addr(), "127.0.0.1:") {
		t.Fatalf("bound %s", a.Addr())
	}
}

// An address that cannot be one is refused saying how to write it, before anything listens.
func TestABadAddressSaysHowToWriteOne(t *testing.T) {
	for addr, want := range map[string]string{
		"nope:xx":         `admin address "nope:xx": the port must be a number from 0 to 65535`,
		"127.0.0.1:70000": `admin address "127.0.0.1:70000": the port must be a number from 0 to 65535`,
		"localhost":       `admin address "localhost": write host:port, or a port for 127.0.0.1`,
	} {
		if _, err := ops.Listen(addr, ops.NewMetrics("x"), slog.New(slog.DiscardHandler)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", addr, err, want)
		}
	}
}

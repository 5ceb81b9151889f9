package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The states /readyz reports. Only StateReady answers 200.
const (
	StateStarting = "starting" // the config is being loaded, built and started
	StateReady    = "ready"    // every connector is started and serving
	StateStopping = "stopping" // a signal arrived: requests are finishing, no new ones should come
)

// Admin is the admin listener: it belongs to the process, not to a unit's build, so it serves
// across reloads, and it never shares a port with the service (its own socket; a connector on
// the same port fails to bind).
//
//	/healthz  200 "ok" while the process runs
//	/readyz   200 when the service serves, else 503; a JSON body says why
//	/metrics  the Prometheus text format
type Admin struct {
	ln  net.Listener
	srv *http.Server
	log *slog.Logger

	mu         sync.Mutex
	state      string
	lastReload *reloadStatus
	done       chan struct{}
}

// reloadStatus is what /readyz says of the last reload.
type reloadStatus struct {
	OK    bool      `json:"ok"`
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"`
}

// Listen binds addr (host:port; a bare port is on 127.0.0.1, since exposing the admin
// endpoints is a decision) and serves m there, in the starting state, until Close.
func Listen(addr string, m *Metrics, logger *slog.Logger) (*Admin, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = net.JoinHostPort("127.0.0.1", addr)
	}
	if _, port, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("admin address %q: write host:port, or a port for 127.0.0.1", addr)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("admin address %q: the port must be a number from 0 to 65535", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin listener: %w", err)
	}
	a := &Admin{ln: ln, log: logger, state: StateStarting, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.Handle("GET /metrics", m.Handler())
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	go func() {
		defer close(a.done)
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("admin listener failed", "err", err)
		}
	}()
	logger.Info("admin listening", "addr", "http://"+ln.Addr().String(), "paths", "/healthz /readyz /metrics")
	return a, nil
}

// Addr is the address the admin listener is bound to.
func (a *Admin) Addr() string { return a.ln.Addr().String() }

// SetState sets what /readyz reports: StateStarting, StateReady or StateStopping, and logs it
// (`readiness state=ready`), so what a probe will see can be read in the log too.
func (a *Admin) SetState(state string) {
	a.mu.Lock()
	a.state = state
	a.mu.Unlock()
	a.log.Info("readiness", "state", state)
}

// Reloaded records the last reload's outcome for /readyz. A reload that failed leaves the
// service ready: the running config keeps serving, and taking it out of rotation for a
// typo in a new config would turn the typo into an outage; /readyz says so, and the metric
// octo_config_last_reload_successful is there to alert on.
func (a *Admin) Reloaded(err error) {
	st := &reloadStatus{OK: err == nil, At: time.Now().UTC()}
	if err != nil {
		st.Error = "the new config was not applied (see the log); the previous config keeps serving"
	}
	a.mu.Lock()
	a.lastReload = st
	a.mu.Unlock()
}

// readyz answers 200 when the service serves, 503 otherwise, with a JSON body saying its state
// and the last reload's outcome.
func (a *Admin) readyz(w http.ResponseWriter, _ *http.Request) {
	a.mu.Lock()
	body := struct {
		Status     string        `json:"status"`
		LastReload *reloadStatus `json:"lastReload,omitempty"`
	}{a.state, a.lastReload}
	a.mu.Unlock()
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if body.Status != StateReady {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_, _ = w.Write(append(b, '\n'))
}

// Close stops the listener, letting a scrape in progress finish while ctx lasts.
func (a *Admin) Close(ctx context.Context) error {
	err := a.srv.Shutdown(ctx)
	<-a.done
	return err
}
